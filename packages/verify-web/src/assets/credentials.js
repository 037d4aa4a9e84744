// Reads a chosen or dropped file's Content Credentials (its C2PA manifest) on this device, with c2pa-rs, the C2PA
// reference implementation, run in a worker (/assets/c2pa-worker.js), and sums up what it found the way C2PA
// validators keep it apart: "valid" (the claim signature and the hard binding verify), "trusted signer" (the signing
// certificate chains to a trust list) and "trusted time" (an RFC 3161 time-stamp). check.js calls it with each file.
'use strict';

window.contentCredentials = (() => {
  const READ_TIMEOUT_MS = 30_000;
  const UNTRUSTED = 'signingCredential.untrusted';
  let worker;
  let nextId = 0;
  const waiting = new Map();

  function settleAll(answer) {
    for (const [id, settle] of waiting) settle({ id, ...answer });
    waiting.clear();
  }

  function startWorker() {
    if (worker) return worker;
    worker = new Worker('/assets/c2pa-worker.js', { type: 'module' });
    worker.addEventListener('message', (event) => {
      const settle = waiting.get(event.data.id);
      waiting.delete(event.data.id);
      if (settle) settle(event.data);
    });
    worker.addEventListener('error', () => {
      worker = undefined;
      settleAll({ outcome: 'error', message: 'this browser could not start the C2PA reader' });
    });
    return worker;
  }

  /** The format c2pa-rs is told: the file's media type, else its extension. */
  function formatOf(file) {
    const extension = /\.([A-Za-z0-9]{1,8})$/.exec(file.name);
    return file.type || (extension ? extension[1].toLowerCase() : 'application/octet-stream');
  }

  function codes(list) {
    return (Array.isArray(list) ? list : []).filter((s) => s && typeof s.code === 'string');
  }

  function text(value) {
    return typeof value === 'string' ? value : '';
  }

  /** The IPTC digital source type of the manifest's actions: its inception action's, else the first one named. */
  function sourceTypeOf(assertions) {
    const actions = assertions
      .filter((a) => a && /^c2pa\.actions(\.v2)?(__\d+)?$/.test(a.label) && a.data && Array.isArray(a.data.actions))
      .flatMap((a) => a.data.actions)
      .filter((action) => action && typeof action.digitalSourceType === 'string');
    const inception = actions.find((action) => action.action === 'c2pa.created' || action.action === 'c2pa.opened');
    return (inception || actions[0] || {}).digitalSourceType || null;
  }

  function attestationOf(assertions) {
    const label = (window.attestationVocabulary || {}).attestationAssertion;
    const found = assertions.find((a) => a && a.label === label && a.data && typeof a.data === 'object');
    if (!found) return null;
    const { uid, chainId, verifyUrl } = found.data;
    return { uid: text(uid), chainId: Number.isSafeInteger(chainId) ? chainId : null, verifyUrl: text(verifyUrl) };
  }

  function generatorOf(manifest) {
    const info = Array.isArray(manifest.claim_generator_info) ? manifest.claim_generator_info : [];
    const named = info
      .filter((i) => i && typeof i.name === 'string')
      .map((i) => (typeof i.version === 'string' ? `${i.name} ${i.version}` : i.name));
    return named.join(', ') || text(manifest.claim_generator) || 'not named';
  }

  /** The three C2PA questions, answered apart from the manifest store c2pa-rs reported. */
  function summarize(store) {
    const manifest = store.manifests && store.manifests[store.active_manifest];
    if (!manifest) return { manifest: 'absent' };
    const results = (store.validation_results && store.validation_results.activeManifest) || {};
    const failure = codes(results.failure);
    const passed = codes(results.success).concat(codes(results.informational));
    const has = (list, code) => list.some((s) => s.code === code);
    const signature = manifest.signature_info || {};
    const signerFailures = failure.filter((s) => s.code.startsWith('signingCredential.') && s.code !== UNTRUSTED);
    const timeFailures = failure.filter((s) => s.code.startsWith('timeStamp.'));
    const invalid = failure.filter((s) => s.code !== UNTRUSTED);
    return {
      manifest: 'present',
      manifests: Object.keys(store.manifests).length,
      valid: {
        state: store.validation_state === 'Invalid' || invalid.length > 0 ? 'invalid' : 'valid',
        failures: invalid.map((s) => `${s.code}${s.explanation ? ` (${s.explanation})` : ''}`),
      },
      signer: {
        state:
          signerFailures.length > 0
            ? 'invalid'
            : store.validation_state === 'Trusted' || has(passed, 'signingCredential.trusted')
              ? 'trusted'
              : 'untrusted',
        name: text(signature.common_name) || text(signature.issuer) || 'an unnamed signer',
        issuer: text(signature.issuer),
        failures: signerFailures.map((s) => s.code),
      },
      time: {
        state:
          timeFailures.length > 0
            ? 'invalid'
            : has(passed, 'timeStamp.trusted')
              ? 'trusted'
              : signature.time || has(passed, 'timeStamp.untrusted') || has(passed, 'timeStamp.validated')
                ? 'untrusted'
                : 'none',
        at: text(signature.time),
        failures: timeFailures.map((s) => s.code),
      },
      generator: generatorOf(manifest),
      sourceType: sourceTypeOf(Array.isArray(manifest.assertions) ? manifest.assertions : []),
      attestation: attestationOf(Array.isArray(manifest.assertions) ? manifest.assertions : []),
    };
  }

  function summaryOf(answer, format) {
    if (answer.outcome === 'store') return summarize(answer.store || {});
    if (answer.outcome === 'absent') return { manifest: 'absent' };
    if (answer.outcome === 'unsupported') return { manifest: 'unsupported', format };
    return { manifest: 'unreadable', detail: answer.message || 'the C2PA reader failed' };
  }

  /** The file's C2PA summary; never rejects (a reader that cannot run says so). */
  function read(file) {
    const format = formatOf(file);
    return new Promise((resolve) => {
      const id = ++nextId;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve({ outcome: 'error', message: 'the C2PA reader took too long' });
      }, READ_TIMEOUT_MS);
      waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      try {
        startWorker().postMessage({ id, file, format });
      } catch {
        waiting.get(id)({ outcome: 'error', message: 'this browser could not start the C2PA reader' });
      }
    }).then((answer) => summaryOf(answer, format));
  }

  const stored = (hash) => `c2pa:${hash}`;

  /** Keeps a file's summary in this tab for the page its hash is looked up on (/check?hash=…). */
  async function remember(hash, what, reading) {
    const summary = await reading;
    try {
      sessionStorage.setItem(stored(hash), JSON.stringify({ what, summary }));
    } catch {
      // storage refused: the lookup page then shows the hash's attestations alone
    }
  }

  function recall(hash) {
    try {
      const kept = JSON.parse(sessionStorage.getItem(stored(hash)) || 'null');
      return kept && kept.summary ? kept : null;
    } catch {
      return null;
    }
  }

  return { read, remember, recall };
})();
