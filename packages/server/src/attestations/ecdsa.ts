import { createRequire } from 'node:module';
import { secp256k1 as noble } from '@noble/curves/secp256k1';

/** Signs a 32-byte digest: 64 bytes of r‖s (low-s) and the recovery id. */
export type DigestSigner = (digest: Uint8Array) => { signature: Uint8Array; recovery: number };

interface NativeSecp256k1 {
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
}

function loadNative(): NativeSecp256k1 | undefined {
  try {
    // the package's bindings entry is libsecp256k1 (prebuilt N-API); its index would fall back to slow JS silently
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return undefined;
  }
}

const native = loadNative();

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
