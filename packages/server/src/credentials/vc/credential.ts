import { sourceTypeOf } from '../../attestations/record.ts';
import type { AttestationRow } from '../../attestations/store.ts';
import { toAnchor } from '../../anchoring/record.ts';
import { statusEntryOf } from './status-list.ts';

const VC_CONTEXT = 'https://www.w3.org/ns/credentials/v2';

/** Where the service's credentials point: its issuer, its API and the verification app, and the EAS contract. */
export interface CredentialContext {
  issuer: string;
  publicBaseUrl: string;
  verifyBaseUrl: string;
  easAddress: string;
}

const statusListUrl = (publicBaseUrl: string, list: bigint | number) => `${publicBaseUrl}/v1/status-lists/${list}`;

/**
 * An attestation as a W3C Verifiable Credential 2.0. The subject is the content, named by its hash; `origin` says
 * human or AI (VC reserves `type` for the credential's own types), `digitalSourceType` the IPTC term, `ai` the model
 * behind an AI claim, and `eas` where the EAS attestation lives. Revocation is a Bitstring Status List entry, whatever the attestation's mode.
 */
export function attestationCredential(row: AttestationRow, ctx: CredentialContext): Record<string, unknown> {
  const uid = row.uid!;
  const { list, index } = statusEntryOf(row.id);
  const listUrl = statusListUrl(ctx.publicBaseUrl, list);
  const anchor = toAnchor(row);
  return {
    '@context': [VC_CONTEXT],
    id: `${ctx.publicBaseUrl}/v1/attestations/${uid}/credential`,
    type: ['VerifiableCredential', 'ContentOriginCredential'],
    issuer: ctx.issuer,
    validFrom: row.createdAt.toISOString(),
    credentialSubject: {
      id: `urn:sha256:${row.contentHash.slice(2)}`,
      contentHash: row.contentHash,
      contentType: row.contentType,
      origin: row.type,
      digitalSourceType: sourceTypeOf(row),
      // the model behind an AI claim: what carries it signed for an on-chain claim (docs/decisions.md)
      ...(row.aiModel === null ? {} : { ai: { model: row.aiModel, promptHash: row.aiPromptHash } }),
      attester: row.attester,
      claimant: row.delegated ? { kind: 'account', accountName: row.claimantName } : { kind: 'service' },
      eas: {
        uid,
        mode: row.mode,
        chainId: row.chainId,
        contract: ctx.easAddress,
        schema: row.schemaUid,
        txHash: row.txHash,
        ...(anchor ? { anchor } : {}),
      },
      verifyUrl: `${ctx.verifyBaseUrl}/${uid}`,
    },
    credentialStatus: {
      id: `${listUrl}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(index),
      statusListCredential: listUrl,
    },
  };
}

/** How long a status list may be cached (its `ttl`, and HTTP's max-age): a revocation shows within this time. */
export const STATUS_LIST_TTL_SECONDS = 60;

/** A status list as a BitstringStatusListCredential (unsigned). */
export function statusListCredential(
  list: bigint,
  encodedList: string,
  ctx: CredentialContext,
  now: Date,
): Record<string, unknown> {
  const url = statusListUrl(ctx.publicBaseUrl, list);
  return {
    '@context': [VC_CONTEXT],
    id: url,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    issuer: ctx.issuer,
    validFrom: now.toISOString(),
    credentialSubject: {
      id: `${url}#list`,
      type: 'BitstringStatusList',
      statusPurpose: 'revocation',
      encodedList,
      ttl: STATUS_LIST_TTL_SECONDS * 1000,
    },
  };
}
