import { nativeSecp256k1 as native } from '@attestation-service/protocol/secp256k1';
import { bytesToHex, getAddress, hexToBytes, keccak256, recoverAddress, type Hex } from 'viem';

/**
 * The address that signed a 32-byte digest, or undefined when the signature recovers to none. libsecp256k1 when
 * its prebuild loads (a recovery in viem's JavaScript was most of an uncached verdict's time), else viem.
 */
export async function recoverSigner(digest: Hex, signature: { r: Hex; s: Hex; v: number }): Promise<Hex | undefined> {
  const recid = signature.v >= 27 ? signature.v - 27 : signature.v;
  if (recid !== 0 && recid !== 1) return undefined;
  try {
    if (!native)
      return await recoverAddress({
        hash: digest,
        signature: { r: signature.r, s: signature.s, v: BigInt(27 + recid) },
      });
    const compact = new Uint8Array(64);
    compact.set(hexToBytes(signature.r, { size: 32 }), 0);
    compact.set(hexToBytes(signature.s, { size: 32 }), 32);
    const publicKey = native.ecdsaRecover(compact, recid, hexToBytes(digest), false);
    return getAddress(`0x${keccak256(bytesToHex(publicKey.subarray(1))).slice(-40)}`);
  } catch {
    return undefined;
  }
}
