// Label an image as AI-generated where every content-labelling tool can read it: attest it, embed signed C2PA
// Content Credentials naming the attestation, then check both claims the way an outsider would — the manifest with
// c2pa-rs (the C2PA reference implementation) and the W3C Verifiable Credential with the SDK's verifyCredential.
//   ATTESTATION_API_URL=http://127.0.0.1:8080 ATTESTATION_API_KEY=svc_free_… ./dev example label-image [IMAGE.png]
// Without an image it makes a small PNG of its own (new pixels each run). Writes <image>.c2pa.png beside it.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { initSync, WasmReader } from '@contentauth/c2pa-wasm';
import { createClient, isServiceError, verifyCredential } from '@attestation-service/client';

const baseUrl = process.env.ATTESTATION_API_URL ?? 'http://127.0.0.1:8080';
const client = createClient({ baseUrl, apiKey: process.env.ATTESTATION_API_KEY });

/** A 32×32 PNG of random pixels: a fresh image, so a fresh content hash, on every run. */
function noisePng(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(32, 0);
  header.writeUInt32BE(32, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits a channel, RGB
  const rows = Buffer.concat(Array.from({ length: 32 }, () => Buffer.concat([Buffer.from([0]), randomBytes(96)])));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const input = process.argv[2];
const image = input ? readFileSync(input) : noisePng();
const output = input ? input.replace(/(\.png)?$/i, '.c2pa.png') : join(tmpdir(), `label-${Date.now()}.c2pa.png`);

try {
  // 1. the claim: AI-generated, as IPTC's digital source type names it
  const created = await client.attestations.create({
    type: 'ai',
    contentHash: createHash('sha256').update(image).digest('hex'),
    contentType: 'image/png',
    mode: 'offchain',
    digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
  });
  console.log(`attested ${created.uid} (${created.digitalSourceType})`);

  // 2. the label: the same image with a signed C2PA manifest embedded
  const labelled = await client.attestations.contentCredentials(created.uid, image, { mediaType: 'image/png' });
  writeFileSync(output, labelled);
  console.log(`labelled image written to ${output} (${labelled.length} bytes)`);

  // 3. what any C2PA reader sees: read with c2pa-rs itself
  initSync({ module: readFileSync(createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm')) });
  const reader = await WasmReader.fromBytes('image/png', labelled);
  const store = JSON.parse(reader.json());
  reader.free();
  const manifest = store.manifests[store.active_manifest];
  const assertion = (label: string) => manifest.assertions.find((a: { label: string }) => a.label === label)?.data;
  const action = assertion('c2pa.actions.v2')?.actions?.[0] ?? assertion('c2pa.actions')?.actions?.[0];
  const failures = (store.validation_results?.activeManifest?.failure ?? []).map((f: { code: string }) => f.code);
  console.log(`C2PA: ${store.validation_state}; ${action?.action} as ${action?.digitalSourceType}`);
  console.log(`C2PA: names attestation ${assertion('org.attestation-service.attestation')?.uid}`);
  console.log(
    `C2PA: signer ${manifest.signature_info?.issuer}; ${failures.length ? failures.join(', ') : 'no failures'}`,
  );

  // 4. what any VC verifier sees: the credential, its signature and its status list
  const jwt = await client.attestations.credential(created.uid);
  const { credential, revoked } = await verifyCredential(jwt, { jwks: `${baseUrl}/.well-known/jwks.json` });
  console.log(
    `VC: issued by ${credential.issuer}, ${credential.credentialSubject.origin}, revoked: ${revoked}, verify at ${credential.credentialSubject.verifyUrl}`,
  );
} catch (error) {
  if (isServiceError(error)) {
    console.error(`${error.status} ${error.code}: ${error.message}`, error.details);
    process.exit(1);
  }
  throw error;
}
