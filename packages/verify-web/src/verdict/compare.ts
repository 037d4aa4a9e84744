import type { Hex } from 'viem';
import type { Attestation } from '@attestation-service/client';
import { decodeAttestationData, SCHEMA_UID } from '@attestation-service/protocol';
import type { TrustAnchors } from './eas.ts';
import type { Check, StatusListSignal } from './types.ts';

/** Hex values compare case-insensitively (addresses come checksummed from one side, lower-case from the other). */
export function sameHex(a: string | null | undefined, b: string | null | undefined): boolean {
  return typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
}

export function check(label: string, ok: boolean, detail: string): Check {
  return { label, ok, detail };
}

/**
 * Whose signature the chain must show: the service's attester (configuration), or, for a customer attester, the
 * address the record names as claimant; the record's word that the account proved that address is the service's.
 */
export function claimedAttester(record: Attestation, anchors: TrustAnchors): string {
  return record.claimant?.kind === 'account' ? record.claimant.address : anchors.attester;
}

/** The record's claims that need no chain read: the right chain, schema and attester. */
export function recordChecks(uid: string, record: Attestation, anchors: TrustAnchors): Check[] {
  return [
    check('UID', sameHex(record.uid, uid), 'the record is the one asked for'),
    check(
      'Chain',
      record.chainId === anchors.chainId,
      `the record names chain ${record.chainId}; this verifier checks chain ${anchors.chainId}`,
    ),
    record.claimant?.kind === 'account'
      ? check(
          'Customer attester',
          sameHex(record.attester, record.claimant.address),
          `the record names attester ${record.attester}, claimed by ${record.claimant.accountName ?? 'an account'} (${record.claimant.address})`,
        )
      : check(
          'Service attester',
          sameHex(record.attester, anchors.attester),
          `the record names attester ${record.attester}; the service's attester is ${anchors.attester}`,
        ),
    check('Record schema', sameHex(record.schemaUid, SCHEMA_UID), `the record names schema ${record.schemaUid}`),
  ];
}

/** The data's claims against the record: same content hash, same origin. `source` names what holds the data. */
export function dataChecks(record: Attestation, data: Hex, source: string): Check[] {
  const decoded = decodeAttestationData(data);
  if (!decoded)
    return [check('Data', false, `the data of the ${source} does not decode as bytes32 contentHash, bool aiGenerated`)];
  return [
    check(
      'Content hash',
      sameHex(decoded.contentHash, record.contentHash),
      `the ${source} holds content hash ${decoded.contentHash}`,
    ),
    check(
      'Origin',
      decoded.type === record.type,
      `the ${source} says ${decoded.type === 'ai' ? 'AI-generated' : 'human-made'}`,
    ),
  ];
}

/** The revocation check: the chain's word against the record's. */
export function revocationCheck(record: Attestation, chainRevokedAt: bigint): Check {
  const onChain = chainRevokedAt > 0n;
  const said = onChain
    ? `revoked on chain at ${new Date(Number(chainRevokedAt) * 1000).toISOString()}`
    : 'not revoked on chain';
  return check(
    'Revocation',
    onChain === record.revoked,
    `${said}; the record says ${record.revoked ? 'revoked' : 'not revoked'}`,
  );
}

/** The origin the record names against the one the chain or the signature carries (EAS refUID; zero: none). */
export function refCheck(record: Attestation, signedRef: string, source: string): Check {
  const signed = /^0x0*$/.test(signedRef) ? null : signedRef;
  const named = record.refUid ?? null;
  return check(
    'Derived from',
    signed === null ? named === null : sameHex(signed, named),
    `the ${source} derives from ${signed ?? 'nothing'}; the record says ${named ?? 'nothing'}`,
  );
}

/**
 * The status list's word against the chain's: they must agree, as the record and the chain must. A list that could not
 * be read (`unchecked`) is no check at all, passed or failed; one the API served unsound fails.
 */
export function statusListCheck(signal: StatusListSignal, chainRevokedAt: bigint): Check | undefined {
  if (signal.state === 'unchecked') return undefined;
  if (signal.state === 'unsound') return check('Status list', false, `the service's status list: ${signal.reason}`);
  const onChain = chainRevokedAt > 0n;
  return check(
    'Status list',
    (signal.state === 'revoked') === onChain,
    `the service's status list ${signal.list} says ${signal.state === 'revoked' ? 'revoked' : 'not revoked'} at index ${signal.index}; the chain says ${onChain ? 'revoked' : 'not revoked'}`,
  );
}
