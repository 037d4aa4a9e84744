// Shows a file's Content Credentials as credentials.js summed them up: one row per signal, each with a data-state, and
// the attestation the manifest names (linked when its page is on this verifier). Everything the manifest says is
// written as text, never as markup: a manifest is the file's author's words.
'use strict';

window.contentCredentialsView = (() => {
  const UID = /^0x[0-9a-fA-F]{64}$/;

  function element(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, value);
    node.append(...children.filter((child) => child !== null && child !== undefined));
    return node;
  }

  function row(list, field, term, state, ...value) {
    list.append(
      element(
        'div',
        { 'data-c2pa-field': field, 'data-state': state },
        element('dt', {}, term),
        element('dd', {}, ...value),
      ),
    );
  }

  const MANIFEST = {
    absent: () => 'None: this file carries no C2PA manifest.',
    unsupported: (s) => `None read: c2pa-rs reads no embedded manifest from this kind of file (${s.format}).`,
    unreadable: (s) => `Could not be read on this device: ${s.detail}.`,
    present: (s) =>
      `Present: ${s.manifests === 1 ? 'one manifest' : `${s.manifests} manifests`}; the active one was read here by ` +
      'c2pa-rs, the C2PA reference implementation.',
  };

  function signerText(signer) {
    const who =
      signer.issuer && signer.issuer !== signer.name ? `${signer.name} (issued by ${signer.issuer})` : signer.name;
    if (signer.state === 'trusted') return `Trusted: signed by ${who}, whose certificate chains to a trust list.`;
    if (signer.state === 'invalid')
      return `The certificate of ${who} is not acceptable: ${signer.failures.join(', ')}.`;
    return `Not on a trust list: signed by ${who}, whose certificate chains to no trust list this page holds, so nothing vouches for who signed.`;
  }

  function timeText(time) {
    if (time.state === 'trusted') return `Trusted: an RFC 3161 time-stamp from a trusted authority says ${time.at}.`;
    if (time.state === 'invalid') return `The time-stamp does not verify: ${time.failures.join(', ')}.`;
    if (time.state === 'untrusted')
      return `Not trusted: a time-stamp says ${time.at || 'a time'}, but its authority is on no trust list.`;
    return 'No trusted time-stamp: the manifest carries no RFC 3161 time-stamp, so nothing proves when it was signed.';
  }

  function sourceTypeValue(uri) {
    if (!uri) return ['Not stated in its actions.'];
    const label = ((window.attestationVocabulary || {}).sourceTypes || {})[uri];
    return [label || 'Not an IPTC digital source type this page knows', element('br'), element('code', {}, uri)];
  }

  /** The attestation's page on this verifier, when the manifest's verifyUrl is one of ours. */
  function ourPage(attestation) {
    if (!UID.test(attestation.uid)) return null;
    try {
      const url = new URL(attestation.verifyUrl);
      const path = `/${attestation.uid}`;
      return url.origin === location.origin && url.pathname.toLowerCase() === path.toLowerCase() ? path : null;
    } catch {
      return null;
    }
  }

  function attestationValue(attestation, context) {
    if (!attestation) return ['None: the manifest names no attestation of this service.'];
    const page = ourPage(attestation);
    const uid = attestation.uid || 'no uid';
    const same = context.uid && uid.toLowerCase() === context.uid.toLowerCase();
    if (!page)
      return [
        element('code', {}, uid),
        ` on chain ${attestation.chainId ?? 'unnamed'}; its page is not on this verifier.`,
      ];
    return [
      element('a', { href: page, class: 'mono' }, uid),
      same ? ' (this attestation)' : ' (open its page to check it)',
    ];
  }

  function note(summary, context) {
    const names =
      summary.attestation && context.uid && summary.attestation.uid.toLowerCase() === context.uid.toLowerCase();
    if (!names || context.hashMatches !== false) return null;
    return element(
      'p',
      { class: 'note', 'data-c2pa-note': 'embedded' },
      "The manifest names this attestation. The file's SHA-256 differs from the attested content's because the " +
        'manifest is embedded in it; whether the rest is that content rests on who signed the manifest (see Trusted signer).',
    );
  }

  /** Writes a summary into a container: a heading, the rows, and a note where the hash and the manifest part ways. */
  function show(container, summary, context) {
    const list = element('dl', { class: 'fields' });
    row(list, 'manifest', 'Manifest', summary.manifest, MANIFEST[summary.manifest](summary));
    if (summary.manifest === 'present') {
      const valid = summary.valid.state === 'valid';
      row(
        list,
        'valid',
        'Valid',
        summary.valid.state,
        valid
          ? 'Valid: the claim signature verifies, and the hard binding matches these bytes.'
          : `Not valid: ${summary.valid.failures.join('; ') || 'c2pa-rs reports the manifest invalid'}.`,
      );
      row(list, 'signer', 'Trusted signer', summary.signer.state, signerText(summary.signer));
      row(list, 'time', 'Trusted time', summary.time.state, timeText(summary.time));
      row(list, 'generator', 'Claim generator', 'named', summary.generator);
      row(
        list,
        'source-type',
        'Digital source type',
        summary.sourceType ? 'named' : 'none',
        ...sourceTypeValue(summary.sourceType),
      );
      row(
        list,
        'attestation',
        'Attestation it names',
        summary.attestation ? 'named' : 'none',
        ...attestationValue(summary.attestation, context),
      );
    }
    container.dataset.c2pa = summary.manifest;
    container.replaceChildren(element('h3', {}, `Content Credentials (C2PA) of the ${context.what}`), list);
    const said = note(summary, context);
    if (said) container.append(said);
  }

  function showReading(container, what) {
    container.dataset.c2pa = 'reading';
    container.replaceChildren(
      element('p', { class: 'note' }, `Reading the Content Credentials of the ${what} on this device…`),
    );
  }

  function clear(container) {
    delete container.dataset.c2pa;
    container.replaceChildren();
  }

  // a file looked up on /check: its summary was kept in this tab before the lookup (credentials.js remember)
  for (const container of document.querySelectorAll('[data-c2pa-stored]')) {
    const kept = window.contentCredentials && window.contentCredentials.recall(container.dataset.c2paStored);
    if (kept) show(container, kept.summary, { what: kept.what });
  }

  return { show, showReading, clear };
})();
