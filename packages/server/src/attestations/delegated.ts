import { secp256k1 } from '@noble/curves/secp256k1';
import {
  DELEGATED_ATTEST_TYPES,
  encodeAttestationData,
  SCHEMA_UID,
  type DelegatedDomain,
  type OffchainDomain,
} from '@attestation-service/protocol';
import { getAddress, recoverTypedDataAddress, zeroAddress, zeroHash, type Hex } from 'viem';
import { publicKeyToAddress } from 'viem/utils';
import { AppError } from '../errors.ts';
import type { DelegationInput } from './delegated-contracts.ts';
import { attestDigester } from './eip712.ts';
import { offchainPackage, type OffchainPackage } from './offchain.ts';
import type { AttestationOrigin } from './states.ts';

/** How far ahead a delegated request's deadline must be: the relayer needs the time to mine it. */
const MIN_DEADLINE_SECONDS = 120;
/** How far an off-chain signature's `time` may be from the service's clock. */
const OFFCHAIN_TIME_WINDOW_SECONDS = 600;

const HALF_N = secp256k1.CURVE.n / 2n;

/** r, s and v (27 or 28) of a 65-byte signature; undefined for one EAS's verifier (OpenZeppelin's) would refuse. */
function splitSignature(signature: string): { v: number; r: Hex; s: Hex } | undefined {
  const r = `0x${signature.slice(2, 66)}` as Hex;
  const s = `0x${signature.slice(66, 130)}` as Hex;
  const raw = Number.parseInt(signature.slice(130, 132), 16);
  const v = raw < 27 ? raw + 27 : raw;
  if (v !== 27 && v !== 28) return undefined;
  if (BigInt(s) > HALF_N || BigInt(s) === 0n || BigInt(r) === 0n) return undefined;
  return { v, r, s };
}

function invalidSignature(path: string, attester: string, what: string): AppError {
  return new AppError(
    'INVALID_SIGNATURE',
    `The ${what} signature was not made by ${attester}, or not over this attestation's fields.`,
    { path, attester },
  );
}

/** The item a customer attester signed for: its origin and content hash, as the schema encodes them. */
interface SignedItem {
  type: AttestationOrigin;
  contentHash: Hex;
  /** The attestation it derives from, signed as its refUID; absent or null for none. */
  refUid?: string | null | undefined;
}

/** The refUID a customer signed: the uid the item derives from, else zero. */
const refUidOf = (item: SignedItem): Hex => (item.refUid ?? zeroHash) as Hex;

/** The on-chain request's signature, verified as EAS will verify it (`path` names the field in errors). */
export async function verifyDelegatedRequest(
  domain: DelegatedDomain,
  item: SignedItem,
  delegation: DelegationInput,
  path: string,
): Promise<{ attester: Hex; signature: { v: number; r: Hex; s: Hex }; nonce: string; deadline: string }> {
  const attester = getAddress(delegation.attester);
  const signature = splitSignature(delegation.signature);
  const nonce = delegation.nonce!;
  const deadline = delegation.deadline!;
  const recovered = signature
    ? await recoverTypedDataAddress({
        domain: { ...domain, chainId: BigInt(domain.chainId) },
        types: DELEGATED_ATTEST_TYPES,
        primaryType: 'Attest',
        message: {
          attester,
          schema: SCHEMA_UID,
          recipient: zeroAddress,
          expirationTime: 0n,
          revocable: true,
          refUID: refUidOf(item),
          data: encodeAttestationData(item.contentHash, item.type),
          value: 0n,
          nonce: BigInt(nonce),
          deadline: BigInt(deadline),
        },
        signature: delegation.signature as Hex,
      }).catch(() => undefined)
    : undefined;
  if (recovered !== attester) throw invalidSignature(path, attester, 'delegated request');
  return { attester, signature: signature!, nonce, deadline };
}

/** Refuses a deadline already past or too near to be mined (0: none). */
export function assertDeadline(deadline: string, nowSeconds: number, path: string): void {
  const value = BigInt(deadline);
  if (value !== 0n && value < BigInt(nowSeconds + MIN_DEADLINE_SECONDS))
    throw new AppError(
      'DELEGATION_EXPIRED',
      `The signed deadline (${deadline}) is past or less than ${MIN_DEADLINE_SECONDS} seconds away; sign again with a later one (or 0 for none).`,
      { path, deadline, minimum: String(nowSeconds + MIN_DEADLINE_SECONDS) },
    );
}

/**
 * A customer's off-chain attestation: the EAS v2 package over our fixed fields (schema, no recipient, no expiry,
 * revocable) and the item's refUID, checked to be signed by the attester at a time within the window of `nowSeconds`.
 */
export function customerOffchainPackage(
  domain: OffchainDomain,
  item: SignedItem,
  delegation: DelegationInput,
  nowSeconds: number,
  path: string,
): OffchainPackage {
  const attester = getAddress(delegation.attester);
  const time = BigInt(delegation.time!);
  if (time < BigInt(nowSeconds - OFFCHAIN_TIME_WINDOW_SECONDS) || time > BigInt(nowSeconds + 60))
    throw new AppError(
      'DELEGATION_EXPIRED',
      `The signed time (${delegation.time}) must be within ${OFFCHAIN_TIME_WINDOW_SECONDS / 60} minutes before now (and at most a minute ahead); sign again with the current time.`,
      { path, time: delegation.time!, now: String(nowSeconds) },
    );
  const fields = {
    schema: SCHEMA_UID,
    recipient: zeroAddress as Hex,
    time,
    expirationTime: 0n,
    revocable: true,
    refUID: refUidOf(item),
    data: encodeAttestationData(item.contentHash, item.type),
    salt: delegation.salt!.toLowerCase() as Hex,
  };
  const signature = splitSignature(delegation.signature);
  if (!signature || recoverDigest(attestDigester(domain)(fields), signature) !== attester)
    throw invalidSignature(path, attester, 'off-chain attestation');
  return offchainPackage(fields, signature, domain, attester);
}

function recoverDigest(digest: Uint8Array, sig: { v: number; r: Hex; s: Hex }): Hex | undefined {
  try {
    const point = new secp256k1.Signature(BigInt(sig.r), BigInt(sig.s))
      .addRecoveryBit(sig.v - 27)
      .recoverPublicKey(digest);
    return getAddress(publicKeyToAddress(`0x${point.toHex(false)}`));
  } catch {
    return undefined;
  }
}
