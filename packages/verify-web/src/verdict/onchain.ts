import { zeroAddress, type Hex } from 'viem';
import type { Attestation } from '@attestation-service/client';
import { SCHEMA_UID } from '@attestation-service/protocol';
import { check, claimedAttester, dataChecks, refCheck, revocationCheck, sameHex } from './compare.ts';
import type { EasReader, TrustAnchors } from './eas.ts';
import type { Check } from './types.ts';

/**
 * An on-chain attestation, read back from the EAS contract and compared field by field with the record:
 * uid, schema, attester, recipient, data (content hash and origin), expiry and revocation, and the
 * transaction the record names (its block, and an EAS `Attested` log of this uid from our attester).
 */
export async function onchainChecks(
  record: Attestation,
  eas: EasReader,
  anchors: TrustAnchors,
  nowSeconds: number,
): Promise<{ checks: Check[]; revokedAt: bigint }> {
  const uid = record.uid as Hex;
  const attester = claimedAttester(record, anchors);
  const [attestation, mined] = await Promise.all([
    eas.getAttestation(uid),
    record.txHash ? eas.attestedIn(record.txHash as Hex) : Promise.resolve(undefined),
  ]);
  if (/^0x0+$/.test(attestation.uid)) {
    return {
      checks: [check('On chain', false, `the EAS contract ${anchors.eas} holds no attestation with this uid`)],
      revokedAt: 0n,
    };
  }
  const log = mined?.logs.find((l) => sameHex(l.uid, uid) && sameHex(l.address, anchors.eas));
  const checks: Check[] = [
    check('On chain', sameHex(attestation.uid, uid), `the EAS contract ${anchors.eas} holds this uid`),
    check('Schema', sameHex(attestation.schema, SCHEMA_UID), `the chain's schema is ${attestation.schema}`),
    check(
      'Attester',
      sameHex(attestation.attester, attester) && sameHex(attestation.attester, record.attester),
      `the chain's attester is ${attestation.attester}`,
    ),
    check(
      'Recipient',
      sameHex(attestation.recipient, zeroAddress),
      `the chain's recipient is ${attestation.recipient} (the service attests to content, not to an address)`,
    ),
    ...dataChecks(record, attestation.data, 'attestation on chain'),
    refCheck(record, attestation.refUID, 'attestation on chain'),
    check(
      'Expiry',
      attestation.expirationTime === 0n || attestation.expirationTime > BigInt(nowSeconds),
      attestation.expirationTime === 0n
        ? 'never expires'
        : `expires at ${new Date(Number(attestation.expirationTime) * 1000).toISOString()}`,
    ),
    revocationCheck(record, attestation.revocationTime),
    check(
      'Transaction',
      !!log && sameHex(log.attester, attester) && mined!.blockNumber === BigInt(record.blockNumber ?? -1),
      !record.txHash
        ? 'the record names no transaction'
        : !mined
          ? `the chain has no transaction ${record.txHash}`
          : log
            ? `transaction ${record.txHash} in block ${mined.blockNumber} logged this attestation; the record says block ${record.blockNumber}`
            : `transaction ${record.txHash} logged no EAS attestation with this uid`,
    ),
  ];
  return { checks, revokedAt: attestation.revocationTime };
}
