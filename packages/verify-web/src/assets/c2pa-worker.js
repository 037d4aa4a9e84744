// The C2PA reader: c2pa-rs, the reference implementation, as WebAssembly (@contentauth/c2pa-wasm, served by this app).
// A worker of its own, under the Content-Security-Policy it is served with: it alone may fetch (the WebAssembly, from
// this app only) and compile WebAssembly, so the page keeps connect-src 'none'. It is handed a file, reads its manifest
// store on this device and answers it as JSON; nothing leaves the device, and c2pa-rs fetches no remote manifest and
// asks no OCSP responder.
'use strict';

const SETTINGS = JSON.stringify({ verify: { remote_manifest_fetch: false, ocsp_fetch: false } });

let loading;

function c2pa() {
  if (!loading) {
    loading = import('/assets/c2pa/c2pa.js').then(async (module) => {
      // the WebAssembly must be the one this build of the bindings was made with (Subresource Integrity)
      const wasm = fetch('/assets/c2pa/c2pa_bg.wasm', { integrity: module.WASM_SRI });
      await module.default({ module_or_path: wasm });
      return module;
    });
    loading.catch(() => (loading = undefined)); // the next file tries again
  }
  return loading;
}

/** What a c2pa-rs error means for the page: no manifest, a kind of file it reads none from, or a failure. */
function outcomeOf(message) {
  if (/JumbfNotFound|ManifestNotFound|ProvenanceMissing/.test(message)) return 'absent';
  if (/UnsupportedType/.test(message)) return 'unsupported';
  return 'error';
}

self.addEventListener('message', async (event) => {
  const { id, file, format } = event.data;
  let reader;
  try {
    const { WasmReader } = await c2pa();
    reader = await WasmReader.fromBlob(format, file, SETTINGS);
    postMessage({ id, outcome: 'store', store: JSON.parse(reader.json()) });
  } catch (error) {
    const message = String(error && error.message ? error.message : error).slice(0, 300);
    postMessage({ id, outcome: outcomeOf(message), message });
  } finally {
    if (reader) reader.free();
  }
});
