import { secp256k1 as noble } from '@noble/curves/secp256k1';
import { nativeSecp256k1 } from '@attestation-service/protocol/secp256k1';

/** Signs a 32-byte digest: 64 bytes of r‖s (low-s) and the recovery id. */
type DigestSigner = (digest: Uint8Array) => { signature: Uint8Array; recovery: number };

const native = nativeSecp256k1;

/** Which implementation signs: libsecp256k1 (~10× faster here) when its prebuild loads, else @noble/curves. */
export const ecdsaImplementation = native ? 'libsecp256k1' : '@noble/curves';

export function digestSigner(privateKey: Uint8Array): DigestSigner {
  if (native) {
    return (digest) => {
      const { signature, recid } = native.ecdsaSign(digest, privateKey);
      return { signature, recovery: recid };
    };
  }
  return (digest) => {
    const sig = noble.sign(digest, privateKey, { lowS: true });
    return { signature: sig.toCompactRawBytes(), recovery: sig.recovery };
  };
}
