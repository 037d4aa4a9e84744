// The baseline of the Content Credentials bench: c2pa-wasm signing the same asset in a bare script, one thread, no
// HTTP, no database, with the same COSE signer and settings as the service's signing threads. Prints one JSON line.
import 'reflect-metadata';
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as x509 from '@peculiar/x509';
import { initSync, WasmBuilder } from '@contentauth/c2pa-wasm';
import { reserveSize, signClaim, type CoseSigner } from '../src/credentials/c2pa/cose.ts';
import { jpegOf, mp4Of } from './c2pa-assets.ts';

const { ASSET = 'jpeg', SIZE = '1000000', SECONDS = '10', C2PA_SIGNING_CERT = '', C2PA_SIGNING_KEY = '' } = process.env;
initSync({ module: readFileSync(createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm')) });
const signer: CoseSigner = {
  alg: 'es256',
  chain: x509.PemConverter.decode(C2PA_SIGNING_CERT).map((der) => new Uint8Array(der)),
  key: createPrivateKey(C2PA_SIGNING_KEY),
};
const size = reserveSize(signer);
const format = ASSET === 'jpeg' ? 'image/jpeg' : 'video/mp4';
const bytes = ASSET === 'jpeg' ? jpegOf(Number(SIZE)) : mp4Of(Number(SIZE));
const definition = JSON.stringify({
  claim_generator_info: [{ name: 'bench' }],
  format,
  assertions: [
    {
      label: 'c2pa.actions',
      data: {
        actions: [
          {
            action: 'c2pa.created',
            digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
          },
        ],
      },
    },
  ],
});
const settings = JSON.stringify({ verify: { verify_after_sign: true, verify_after_sign_hash: true } });
// c2pa-wasm reads a Blob with FileReaderSync, which Node lacks: an in-memory stand-in, as the signing threads have
const blobOf = (view: Uint8Array): { size: number; view: Uint8Array; slice(s?: number, e?: number): unknown } => ({
  size: view.length,
  view,
  slice: (s, e) => blobOf(view.subarray(s, e)),
});
(globalThis as { FileReaderSync?: unknown }).FileReaderSync = class {
  readAsArrayBuffer({ view }: { view: Uint8Array }): ArrayBufferLike {
    return view.byteLength === view.buffer.byteLength ? view.buffer : view.slice().buffer;
  }
};
const source = blobOf(bytes) as unknown as Blob;
const sign = (claim: Uint8Array<ArrayBuffer>) => signClaim(claim, signer, size) as Promise<Uint8Array<ArrayBuffer>>;

const idleRssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
const deadline = performance.now() + Number(SECONDS) * 1000;
const started = performance.now();
let count = 0;
while (performance.now() < deadline) {
  const builder = WasmBuilder.fromJson(definition, settings);
  await builder.sign({ alg: 'es256', reserveSize: size, sign }, [], format, source);
  builder.free();
  count++;
}
// the peak resident set of the whole run (getrusage), which the signing loop is
const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
console.log(JSON.stringify({ count, seconds: (performance.now() - started) / 1000, idleRssMb, peakRssMb }));
