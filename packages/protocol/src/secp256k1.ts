import { createRequire } from 'node:module';

/*
 * libsecp256k1, for the service's signing and the verification app's recovery (Node only: not part of the package's
 * main entry, which the SDK and the dashboard bundle).
 */

/** The parts of libsecp256k1's N-API binding that are used here. */
export interface NativeSecp256k1 {
  /** r‖s (64 bytes, low s) and the recovery id of a signature of a 32-byte digest. */
  ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  /** The public key (65 bytes uncompressed, or 33 compressed) that signed a 32-byte digest. */
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array;
}

function load(): NativeSecp256k1 | undefined {
  try {
    // the package's bindings entry is libsecp256k1 (prebuilt N-API); its index would fall back to slow JS silently
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
  } catch {
    return undefined;
  }
}

/** libsecp256k1 when its prebuild loads on this machine; else undefined, and callers use JavaScript. */
export const nativeSecp256k1: NativeSecp256k1 | undefined = load();
