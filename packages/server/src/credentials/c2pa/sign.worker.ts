// A signing thread of the pool (signing-pool.ts): c2pa-rs, as WebAssembly, builds, signs and checks each manifest here,
// so no asset's hashing or copying ever runs on the event loop that serves requests.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initSync, WasmBuilder } from '@contentauth/c2pa-wasm';
import { move, workerData } from 'piscina';
import { reserveSize, signClaim, type CoseSigner } from './cose.ts';
import type { SigningIdentity } from './identity.ts';
import { TimeStampUnavailable, tsaClient } from './time-stamp.ts';

export interface SigningWorkerData {
  identity: SigningIdentity;
}

export interface SigningTask {
  /** The asset (moved here, not copied). */
  bytes: Uint8Array;
  format: string;
  embed: boolean;
  /** The manifest definition, JSON (manifest.ts). */
  definition: string;
}

/**
 * The asset with its manifest embedded, or the sidecar manifest store; or why c2pa-rs could not read the asset, or why
 * the time-stamping authority gave no token.
 */
export type SigningResult = Uint8Array | { unreadable: string } | { noTimeStamp: string };

/**
 * c2pa-rs checks what it signed before it answers (the claim signature, the certificate profile, every assertion's
 * hash, and the hard binding over the written asset): the COSE built here is proven by the reference implementation
 * on every signing, not only in tests.
 */
const SETTINGS = JSON.stringify({ verify: { verify_after_sign: true, verify_after_sign_hash: true } });

const { identity } = workerData as SigningWorkerData;
// compiled here, off the event loop, once per thread (tens of milliseconds)
initSync({ module: readFileSync(createRequire(import.meta.url).resolve('@contentauth/c2pa-wasm/c2pa.wasm')) });
installFileReaderSync();

const signer: CoseSigner = {
  alg: identity.alg,
  chain: identity.chain,
  key: createPrivateKey(identity.keyPem),
  timeStamp: identity.tsaUrl === undefined ? undefined : tsaClient(identity.tsaUrl),
};
const size = reserveSize(signer);

export default async function sign(task: SigningTask): Promise<SigningResult> {
  let signerError: unknown;
  const definition = {
    alg: identity.alg,
    reserveSize: size,
    sign: (claim: Uint8Array<ArrayBuffer>) =>
      signClaim(claim, signer, size).then(
        (cose) => cose as Uint8Array<ArrayBuffer>,
        (error: unknown) => {
          signerError = error;
          throw error;
        },
      ),
  };
  const builder = WasmBuilder.fromJson(task.definition, SETTINGS);
  try {
    if (!task.embed) builder.setNoEmbed(true);
    const source = new MemoryBlob(task.bytes) as unknown as Blob;
    const bytes = task.embed
      ? await builder.sign(definition, [], task.format, source)
      : ((await builder.signAndGetManifestBytes(definition, [], task.format, source)) as { manifest: Uint8Array })
          .manifest;
    return move(bytes) as Uint8Array;
  } catch (error) {
    if (signerError instanceof TimeStampUnavailable) return { noTimeStamp: signerError.message };
    if (signerError !== undefined) throw signerError;
    const reason = String(error);
    // a manifest c2pa-rs signed and then found invalid is our fault, never the asset's
    if (reason.includes('InvalidManifest') || reason.includes('CoseSignature')) throw new Error(`c2pa-rs: ${reason}`);
    return { unreadable: reason.slice(0, 300) };
  } finally {
    builder.free();
  }
}

/**
 * c2pa-wasm reads a Blob as a browser worker does, with FileReaderSync, which Node lacks. The asset is in memory
 * already: a Blob-shaped view of it, and a FileReaderSync that hands its bytes over synchronously.
 */
class MemoryBlob {
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
  get size(): number {
    return this.bytes.length;
  }
  slice(start?: number, end?: number): MemoryBlob {
    return new MemoryBlob(this.bytes.subarray(start, end));
  }
}

function installFileReaderSync(): void {
  (globalThis as { FileReaderSync?: unknown }).FileReaderSync = class {
    readAsArrayBuffer(blob: MemoryBlob): ArrayBuffer {
      const { buffer, byteOffset, byteLength } = blob.bytes;
      return byteOffset === 0 && byteLength === buffer.byteLength
        ? (buffer as ArrayBuffer)
        : (buffer as ArrayBuffer).slice(byteOffset, byteOffset + byteLength);
    }
  };
}
