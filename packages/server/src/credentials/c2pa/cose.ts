import type { KeyObject } from 'node:crypto';
import { Algorithms, Headers, ProtectedHeaders, Sign1 } from '@auth0/cose';
import { Encoder } from 'cbor-x';
import type { SigningAlg } from './identity.ts';

/** As @auth0/cose encodes: byte strings untagged, maps as maps. */
const cbor = new Encoder({ tagUint8Array: false, useRecords: false, mapsAsObjects: false });

const COSE_ALG: Record<SigningAlg, Algorithms> = {
  es256: Algorithms.ES256,
  es384: Algorithms.ES384,
  ed25519: Algorithms.EdDSA,
};

/** An RFC 3161 time-stamp token (DER) over the SHA-256 of these bytes. */
export type TimeStamper = (data: Uint8Array) => Promise<Uint8Array>;

export interface CoseSigner {
  alg: SigningAlg;
  chain: Uint8Array[];
  key: KeyObject;
  timeStamp?: TimeStamper | undefined;
}

/**
 * The bytes a C2PA claim signature reserves: the COSE framing, the chain, the signature, and a time-stamp token
 * when there is one, as c2pa-rs reserves them for its own signers.
 */
export function reserveSize(signer: Pick<CoseSigner, 'chain' | 'timeStamp'>): number {
  const chain = signer.chain.reduce((sum, der) => sum + der.length, 0);
  return chain + 1024 + 132 + (signer.timeStamp ? 16_384 : 0);
}

/**
 * The claim's signature as C2PA stores it (C2PA 2.x, "Digital Signatures"): a tagged COSE_Sign1 whose protected header
 * names the algorithm and carries the x5chain, with the claim as the detached payload, the time-stamp token
 * (`sigTst2`, over the signature) unprotected, and zero padding to exactly `size` bytes, the space c2pa-rs left for it.
 */
export async function signClaim(claim: Uint8Array, signer: CoseSigner, size: number): Promise<Uint8Array> {
  const x5chain = signer.chain.length === 1 ? signer.chain[0]! : signer.chain;
  const headers = ProtectedHeaders.from([
    [Headers.Algorithm, COSE_ALG[signer.alg]],
    [Headers.X5Chain, x5chain],
  ]);
  const signed = await Sign1.sign(headers, undefined, claim, signer.key);
  const protectedBytes = headers.encode();
  const unprotected = new Map<string, unknown>();
  if (signer.timeStamp) {
    // C2PA's v2 time-stamp: a countersignature over the signature, so the time proves when it was made
    const counterSigned = cbor.encode([
      'CounterSignature',
      protectedBytes,
      new Uint8Array(),
      cbor.encode(signed.signature),
    ]);
    const token = await signer.timeStamp(counterSigned);
    unprotected.set('sigTst2', new Map([['tstTokens', [new Map([['val', token]])]]]));
  }
  return padded(protectedBytes, unprotected, signed.signature, size);
}

/**
 * The COSE_Sign1, grown to `size` with a `pad` header of zeros. A byte string's length prefix grows at 24, 256 and
 * 65,536 bytes, so a few sizes cannot be hit by one pad: a second (`pad2`) moves past the gap, as c2pa-rs does.
 */
function padded(protectedBytes: Uint8Array, unprotected: Map<string, unknown>, signature: Uint8Array, size: number) {
  for (const second of [undefined, new Uint8Array(10)]) {
    let pad = 0;
    for (let attempt = 0; attempt < 3 && pad >= 0; attempt++) {
      const headers = new Map(unprotected).set('pad', new Uint8Array(pad));
      if (second) headers.set('pad2', second);
      const bytes = encodeSign1(protectedBytes, headers, signature);
      if (bytes.length === size) return bytes;
      pad += size - bytes.length;
    }
  }
  throw new Error(`the claim signature does not fit the ${size} bytes reserved for it`);
}

function encodeSign1(protectedBytes: Uint8Array, unprotected: Map<string, unknown>, signature: Uint8Array) {
  // C2PA's header labels are text (sigTst2, pad), which the library's types leave out (it encodes them as given); the
  // payload is detached: CBOR null
  const sign1 = new Sign1(
    protectedBytes,
    unprotected as unknown as Map<number, unknown>,
    null as unknown as Uint8Array,
    signature,
  );
  return new Uint8Array(sign1.encode());
}
