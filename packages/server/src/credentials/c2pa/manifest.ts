import type { AttestationRecord } from '../../attestations/contracts.ts';

/** The label of the assertion that names the attestation a manifest carries (reverse-DNS, as C2PA asks of custom ones). */
export const ATTESTATION_ASSERTION = 'org.attestation-service.attestation';

/** What the manifest says of the attestation: the record's public facts, and the contract it lives under. */
export interface AttestationFacts {
  record: AttestationRecord;
  /** The EAS contract the attestation is made under (on chain, or as an off-chain attestation's domain). */
  easContract: string;
}

/**
 * The manifest definition c2pa-rs builds the claim from: the inception action `c2pa.created` with the attestation's
 * IPTC digital source type, and an assertion naming the attestation. The hard binding (`c2pa.hash.data`, or
 * `c2pa.hash.bmff` for MP4 and its kin) is added by c2pa-rs itself over the bytes it writes.
 */
export function manifestDefinition({ record, easContract }: AttestationFacts, format: string): string {
  const attestation = {
    uid: record.uid,
    chainId: record.chainId,
    easContract,
    schemaUid: record.schemaUid,
    attester: record.attester,
    mode: record.mode,
    type: record.type,
    digitalSourceType: record.digitalSourceType,
    contentHash: record.contentHash,
    createdAt: record.createdAt,
    verifyUrl: record.verifyUrl,
    ...(record.txHash === null ? {} : { txHash: record.txHash }),
    ...(record.anchor === null ? {} : { anchor: record.anchor }),
    // the model behind an AI claim, signed here by the service's certificate (docs/decisions.md)
    ...(record.ai === null ? {} : { ai: { model: record.ai.model, promptHash: record.ai.promptHash } }),
  };
  return JSON.stringify({
    claim_generator_info: [{ name: 'Attestation Service' }],
    format,
    assertions: [
      {
        label: 'c2pa.actions',
        data: { actions: [{ action: 'c2pa.created', digitalSourceType: record.digitalSourceType }] },
      },
      { label: ATTESTATION_ASSERTION, data: attestation },
    ],
  });
}
