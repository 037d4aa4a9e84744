// Hashes pasted text or a chosen / dropped file with Web Crypto, on this device, and has a file's Content Credentials
// read beside it (credentials.js). Nothing is uploaded: the page's Content-Security-Policy allows no network
// connections from scripts (connect-src 'none'), and the form fields have no names, so a submit carries none of the
// content either. On /check the hash (only) is looked up.
'use strict';

function toHex(buffer) {
  return '0x' + Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function sha256(bytes) {
  return toHex(await crypto.subtle.digest('SHA-256', bytes));
}

function say(output, state, text) {
  output.dataset.result = state;
  output.textContent = text;
}

/** The block after the form where a file's Content Credentials are shown; null without it or the C2PA scripts. */
function credentialsBlock(form) {
  const block = form.parentElement.querySelector('[data-c2pa-result]');
  return block && window.contentCredentials && window.contentCredentialsView ? block : null;
}

async function checkBytes(form, bytes, what, reading) {
  const output = form.querySelector('[data-check-result]');
  const block = credentialsBlock(form);
  if (!window.crypto || !crypto.subtle) {
    say(output, 'error', 'This browser cannot compute SHA-256 here (Web Crypto needs a secure connection).');
    return;
  }
  const actual = await sha256(bytes);
  const expected = form.dataset.expectedHash;
  if (!expected) {
    // the /check page: look the hash up, which is all that leaves the device
    const input = document.getElementById('hash');
    input.value = actual;
    say(
      output,
      'lookup',
      `The ${what}'s SHA-256 is ${actual}. ${reading ? 'Reading its Content Credentials, then looking it up…' : 'Looking it up…'}`,
    );
    if (reading) await window.contentCredentials.remember(actual, what, reading);
    input.form.submit();
    return;
  }
  const matches = actual === expected.toLowerCase();
  if (matches) say(output, 'match', `Matches this attestation: the ${what}'s SHA-256 is ${actual}.`);
  else
    say(
      output,
      'no-match',
      `Does not match this attestation: the ${what}'s SHA-256 is ${actual}, the attested content's is ${expected}.`,
    );
  if (!block) return;
  if (!reading) {
    window.contentCredentialsView.clear(block);
    return;
  }
  const turn = String(Number(block.dataset.turn || 0) + 1);
  block.dataset.turn = turn;
  window.contentCredentialsView.showReading(block, what);
  const summary = await reading;
  // a file chosen since then has the block now
  if (block.dataset.turn === turn)
    window.contentCredentialsView.show(block, summary, {
      what,
      uid: form.dataset.attestationUid,
      hashMatches: matches,
    });
}

async function checkFile(form, file) {
  const reading = credentialsBlock(form) ? window.contentCredentials.read(file) : undefined;
  await checkBytes(form, await file.arrayBuffer(), `file ${file.name}`, reading);
}

for (const form of document.querySelectorAll('[data-content-check]')) {
  const text = form.querySelector('textarea');
  const file = form.querySelector('input[type=file]');
  const zone = form.querySelector('[data-drop-zone]');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (file.files && file.files.length > 0) checkFile(form, file.files[0]);
    else checkBytes(form, new TextEncoder().encode(text.value), 'text');
  });
  file.addEventListener('change', () => {
    if (file.files && file.files.length > 0) {
      text.value = '';
      checkFile(form, file.files[0]);
    }
  });
  text.addEventListener('input', () => {
    file.value = '';
  });
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    const dropped = event.dataTransfer && event.dataTransfer.files[0];
    if (dropped) {
      text.value = '';
      checkFile(form, dropped);
    }
  });
}
