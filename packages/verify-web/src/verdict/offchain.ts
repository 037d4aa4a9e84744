import { hashTypedData, zeroAddress, type Hex } from 'viem';
import type { Attestation, OffchainPackage } from '@attestation-service/client';
import { OFFCHAIN_ATTEST_TYPES, OFFCHAIN_DOMAIN_NAME, offchainUid, SCHEMA_UID } from '@attestation-service/protocol';
import { check, claimedAttester, dataChecks, refCheck, revocationCheck, sameHex } from './compare.ts';
import type { EasReader, TrustAnchors } from './eas.ts';
import { aiDetailsChecks } from './ai-details.ts';
import { recoverSigner } from './recover.ts';
import type { Check } from './types.ts';

/** A package's uid from its signed fields; undefined for fields that do not even encode. */
function uidOf(pkg: OffchainPackage): Hex | undefined {
  try {
    return offchainUid(pkg.sig.message);
  } catch {
    return undefined;
  }
}

async function signer(pkg: OffchainPackage): Promise<Hex | undefined> {
  const { domain, message, signature } = pkg.sig;
  let digest: Hex;
  try {
    digest = hashTypedData({
      domain: { ...domain, verifyingContract: domain.verifyingContract as Hex },
      types: OFFCHAIN_ATTEST_TYPES,
      primaryType: 'Attest',
      message: {
        ...message,
        version: 2,
        schema: message.schema as Hex,
        recipient: message.recipient as Hex,
        time: BigInt(message.time),
        expirationTime: BigInt(message.expirationTime),
        refUID: message.refUID as Hex,
        data: message.data as Hex,
        salt: message.salt as Hex,
      },
    });
  } catch {
    return undefined; // fields that do not even encode
  }
  return recoverSigner(digest, { r: signature.r as Hex, s: signature.s as Hex, v: signature.v });
}

/**
 * An off-chain attestation: its EIP-712 signature must recover to the service's attester under the EAS domain
 * of this chain, its UID must be the one its fields hash to, its data must say what the record says, and
 * `getRevokeOffchain(attester, uid)` on the EAS contract decides whether it is revoked.
 */
export async function offchainChecks(
  record: Attestation,
  eas: EasReader,
  anchors: TrustAnchors,
  nowSeconds: number,
): Promise<{ checks: Check[]; revokedAt: bigint }> {
  const pkg = record.offchain;
  if (!pkg)
    return {
      checks: [check('Signed package', false, 'the record holds no signed off-chain attestation')],
      revokedAt: 0n,
    };
  const { domain, message } = pkg.sig;
  const attester = claimedAttester(record, anchors);
  const [recovered, version, revokedAt, aiChecks] = await Promise.all([
    signer(pkg),
    eas.version(),
    eas.getRevokeOffchain(attester as Hex, record.uid as Hex),
    aiDetailsChecks(record, attester, { signer, uidOf }),
  ]);
  const computedUid = uidOf(pkg);
  const expiration = /^\d+$/.test(message.expirationTime) ? BigInt(message.expirationTime) : -1n;
  const checks: Check[] = [
    check(
      'Signature',
      sameHex(recovered, attester),
      recovered ? `the EIP-712 signature recovers to ${recovered}` : 'the signature does not recover to any address',
    ),
    check(
      'Domain',
      domain.name === OFFCHAIN_DOMAIN_NAME &&
        domain.version === version &&
        domain.chainId === anchors.chainId &&
        sameHex(domain.verifyingContract, anchors.eas),
      `signed for ${domain.name} ${domain.version} on chain ${domain.chainId} at ${domain.verifyingContract}; EAS here is ${version} at ${anchors.eas}`,
    ),
    check(
      'Off-chain UID',
      sameHex(computedUid, record.uid) && sameHex(pkg.sig.uid, record.uid),
      `the signed fields hash to ${computedUid ?? 'nothing valid'}`,
    ),
    check('Schema', sameHex(message.schema, SCHEMA_UID), `the signed schema is ${message.schema}`),
    check('Recipient', sameHex(message.recipient, zeroAddress), `the signed recipient is ${message.recipient}`),
    ...dataChecks(record, message.data as Hex, 'signed attestation'),
    refCheck(record, message.refUID, 'signed attestation'),
    ...aiChecks,
    check(
      'Expiry',
      expiration === 0n || expiration > BigInt(nowSeconds),
      expiration === 0n ? 'never expires' : `expiration time ${message.expirationTime}`,
    ),
    revocationCheck(record, revokedAt),
  ];
  return { checks, revokedAt };
}
