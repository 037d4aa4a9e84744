import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initSync, WasmReader } from '@contentauth/c2pa-wasm';
import { makeSigningChain } from '../../src/credentials/c2pa/dev-ca.ts';
import { call, type TestService } from '../support/service.ts';

initSync({ module: readFileSync(createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm')) });

/** Every fixture under test/fixtures/c2pa, as the media type it is sent with. */
export const FIXTURES: Array<[file: string, mediaType: string]> = [
  ['asset.jpg', 'image/jpeg'],
  ['asset.png', 'image/png'],
  ['asset.webp', 'image/webp'],
  ['asset.gif', 'image/gif'],
  ['asset.tiff', 'image/tiff'],
  ['asset.avif', 'image/avif'],
  ['asset.svg', 'image/svg+xml'],
  ['asset.mp4', 'video/mp4'],
  ['asset.mov', 'video/quicktime'],
  ['asset.avi', 'video/avi'],
  ['asset.m4a', 'audio/mp4'],
  ['asset.wav', 'audio/wav'],
  ['asset.mp3', 'audio/mpeg'],
  ['asset.flac', 'audio/flac'],
];

export const fixture = (file: string): Buffer => readFileSync(new URL(`../fixtures/c2pa/${file}`, import.meta.url));

export const sha256 = (bytes: Uint8Array) => `0x${createHash('sha256').update(bytes).digest('hex')}`;

/** A test CA and signer, as an operator sets them (PEM text in C2PA_SIGNING_CERT and C2PA_SIGNING_KEY). */
export async function signerEnv(): Promise<Record<string, string>> {
  const { keyPem, chainPem } = await makeSigningChain({ caName: 'Content Credentials test CA' });
  return { C2PA_SIGNING_CERT: chainPem, C2PA_SIGNING_KEY: keyPem };
}

/** What c2pa-rs (the reference implementation) reads from bytes: the active manifest and its validation. */
export interface ReadBack {
  state: string;
  failures: string[];
  /** Informational statuses: not failures (an untrusted time-stamping authority, OCSP not fetched). */
  informational: string[];
  assertions: Record<string, any>;
  /** The crJSON assertions, with the hard bindings c2pa-rs leaves out of `assertions`. */
  bindings: Record<string, any>;
  /** The claim signature as c2pa-rs describes it: algorithm, issuer, and the time-stamp's time when there is one. */
  signature: { alg?: string; issuer?: string; time?: string };
}

export async function readBack(mediaType: string, bytes: Uint8Array): Promise<ReadBack> {
  const reader = await WasmReader.fromBytes(mediaType, bytes);
  try {
    const store = JSON.parse(reader.json());
    const active = store.manifests[store.active_manifest];
    const crJson = JSON.parse(reader.crJson());
    return {
      state: store.validation_state,
      failures: (store.validation_results?.activeManifest?.failure ?? []).map((f: { code: string }) => f.code),
      informational: (store.validation_results?.activeManifest?.informational ?? []).map(
        (f: { code: string }) => f.code,
      ),
      assertions: Object.fromEntries(active.assertions.map((a: { label: string; data: unknown }) => [a.label, a.data])),
      bindings: crJson.manifests.at(-1).assertions,
      signature: active.signature_info ?? {},
    };
  } finally {
    reader.free();
  }
}

/** An off-chain attestation of these bytes by the key's account. */
export async function attest(
  svc: TestService,
  key: string,
  bytes: Uint8Array,
  contentType: string,
  type: 'ai' | 'human' = 'ai',
): Promise<string> {
  const res = await call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: { type, contentHash: sha256(bytes), contentType, mode: 'offchain' },
  });
  if (res.status !== 201) throw new Error(`attestation not made: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.uid;
}

/** POST …/content-credentials with the asset as the body; the answer's bytes, or its error body. */
export async function contentCredentials(
  svc: TestService,
  opts: { key?: string; uid: string; bytes: Uint8Array; contentType?: string; accept?: string },
): Promise<{ status: number; headers: Headers; bytes: Uint8Array; json: any }> {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.contentType) headers['content-type'] = opts.contentType;
  if (opts.accept) headers.accept = opts.accept;
  const res = await fetch(`${svc.url}/v1/attestations/${opts.uid}/content-credentials`, {
    method: 'POST',
    headers,
    body: opts.bytes as Uint8Array<ArrayBuffer>,
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const json = res.headers.get('content-type')?.startsWith('application/json')
    ? JSON.parse(Buffer.from(bytes).toString('utf8'))
    : undefined;
  return { status: res.status, headers: res.headers, bytes, json };
}
