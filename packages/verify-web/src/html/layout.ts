import { html, type SafeHtml } from './escape.ts';

/**
 * The page frame: one stylesheet and the deferred scripts of the content check (the vocabulary, the C2PA reading,
 * the hashing), all static files (the CSP allows no inline code).
 */
export function layout(title: string, main: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <link rel="stylesheet" href="/assets/style.css" />
        <script src="/assets/vocabulary.js" defer></script>
        <script src="/assets/credentials.js" defer></script>
        <script src="/assets/credentials-view.js" defer></script>
        <script src="/assets/check.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="site">
          <a href="/check" class="brand">Attestation verifier</a>
          <nav aria-label="Site"><a href="/check">Look up content</a></nav>
        </header>
        <main id="main">${main}</main>
        <footer class="site">
          <p>
            Checked against the Ethereum Attestation Service contract over the chain's RPC, not against our database
            alone.
          </p>
        </footer>
      </body>
    </html> `.__html;
}

/**
 * The content check form: text or a file, hashed in the browser by /assets/check.js, and a file's C2PA manifest read
 * there by /assets/credentials.js (into the block after the form). Neither field has a name, so not even a submit
 * without JavaScript could send the content anywhere. `uid`: the attestation the page is about.
 */
export function contentCheckForm(opts: {
  expectedHash?: string;
  uid?: string;
  heading: string;
  intro: string;
}): SafeHtml {
  return html`<section class="content-check" aria-labelledby="check-heading">
    <h2 id="check-heading">${opts.heading}</h2>
    <p>
      ${opts.intro} Your content never leaves this device: its SHA-256 is computed here, in your browser, and a file's
      Content Credentials (C2PA) are read here too, with the C2PA reference implementation.
    </p>
    <form
      class="check-form"
      data-content-check${opts.expectedHash ? html` data-expected-hash="${opts.expectedHash}"` : ''}${
        opts.uid ? html` data-attestation-uid="${opts.uid}"` : ''
      }
    >
      <label for="check-text">Paste text</label>
      <textarea id="check-text" rows="4" spellcheck="false"></textarea>
      <label for="check-file">Or choose a file (you can also drop it here)</label>
      <div class="drop" data-drop-zone><input id="check-file" type="file" /></div>
      <button type="submit">Check</button>
      <output for="check-text check-file" aria-live="polite" data-check-result></output>
    </form>
    <div class="credentials" aria-live="polite" data-c2pa-result></div>
    <noscript
      ><p class="note">
        Checking content needs JavaScript. Without it, compute the SHA-256 yourself (for example
        <code>sha256sum FILE</code>) and compare it with the content hash shown on this page.
      </p></noscript
    >
  </section>`;
}
