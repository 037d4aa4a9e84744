import type { Attestation } from '@attestation-service/client';
import { CONTENT_HASH_PATTERN } from '@attestation-service/protocol';
import { tooManyLookups } from '../records.ts';
import { html } from './escape.ts';
import { contentCheckForm, layout } from './layout.ts';

export type CheckResult =
  | { kind: 'form' }
  | { kind: 'invalid'; hash: string }
  | { kind: 'results'; hash: string; records: Attestation[] }
  | { kind: 'unavailable'; hash: string }
  | { kind: 'rate-limited'; hash: string; retryAfterSeconds: number };

const ORIGIN = { human: 'Human-made', ai: 'AI-generated' } as const;

function results(result: CheckResult) {
  if (result.kind === 'form') return '';
  if (result.kind === 'invalid')
    return html`<p class="error" id="hash-error" role="alert">
      That is not a SHA-256 hash: give 64 hexadecimal characters, with or without 0x.
    </p>`;
  if (result.kind === 'unavailable')
    return html`<p class="error" role="alert">
      The attestation service did not answer in time; try again in a minute.
    </p>`;
  if (result.kind === 'rate-limited')
    return html`<p class="error" role="alert">${tooManyLookups(result.retryAfterSeconds)}</p>`;
  const { records, hash } = result;
  return html`<section aria-labelledby="results-heading" data-search-results="${records.length}">
    <h2 id="results-heading">
      ${records.length === 0 ? 'No attestations' : records.length === 1 ? 'One attestation' : `${records.length} attestations`}
      for this content
    </h2>
    <p>Content hash <code>${hash}</code>.</p>
    ${
      records.length === 0
        ? html`<p>
            Nobody has attested to this exact content through this service. A single changed byte changes the hash.
          </p>`
        : html`<ul class="results">
              ${records.map((r) => html`<li><a href="/${r.uid}">${ORIGIN[r.type]}</a> · ${r.mode === 'onchain' ? 'on-chain' : 'off-chain'} · <time datetime="${r.createdAt}">${new Date(r.createdAt).toUTCString().replace('GMT', 'UTC')}</time>${r.revoked ? ' · revoked' : ''}<br /><code class="small">${r.uid}</code></li>`)}
            </ul>
            <p>Open one to see it verified against the chain.</p>`
    }
    <div class="credentials" aria-live="polite" data-c2pa-stored="${hash}"></div>
  </section>`;
}

/** `/check`: look attestations up by content hash (typed, or computed in the browser from text or a file). */
export function checkPage(result: CheckResult): string {
  const hash = result.kind === 'form' ? '' : result.hash;
  const invalid = result.kind === 'invalid';
  const main = html`<h1>Look up content</h1>
    <p>
      Find the attestations of a piece of content: who says it is human-made or AI-generated, and whether the chain
      backs it.
    </p>
    <form method="get" action="/check" class="hash-form" data-hash-form>
      <label for="hash">SHA-256 of the content</label>
      <input
        id="hash"
        name="hash"
        type="text"
        inputmode="text"
        autocomplete="off"
        spellcheck="false"
        size="66"
        maxlength="66"
        value="${hash}"
        pattern="${CONTENT_HASH_PATTERN.source.replace(/^\^|\$$/g, '')}"
        ${invalid ? html` aria-invalid="true" aria-describedby="hash-error"` : ''}
      />
      <button type="submit">Look up</button>
    </form>
    ${results(result)}
    ${contentCheckForm({ heading: 'Or start from the content', intro: 'Paste text or choose a file, and the page looks up its hash for you.' })}`;
  return layout('Look up content · Attestation verifier', main);
}
