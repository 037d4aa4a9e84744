import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attestationRecord, searchOutput } from '../../src/attestations/contracts.ts';
import { createOffchainSigner } from '../../src/attestations/offchain.ts';
import { heldJson } from '../../src/attestations/held-answers.ts';
import { recordPageAnswer, recordText, toRecord } from '../../src/attestations/record.ts';
import type { AttestationRow } from '../../src/attestations/store.ts';
import { encodeAiDetailsData, encodeAttestationData, SCHEMA_UID } from '@attestation-service/protocol';

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const signer = createOffchainSigner({
  privateKey: hex(32) as `0x${string}`,
  domain: { name: 'EAS Attestation', version: '1.4.0', chainId: 31337, verifyingContract: hex(20) as `0x${string}` },
  schemaUid: SCHEMA_UID,
});

function offchainRow(overrides: Partial<AttestationRow> = {}): AttestationRow {
  const contentHash = hex(32) as `0x${string}`;
  const signed = signer.sign(encodeAttestationData(contentHash, 'ai'), 1_790_000_000);
  return {
    id: 7n,
    uid: signed.sig.uid,
    accountId: '00000000-0000-4000-8000-000000000001',
    apiKeyId: '00000000-0000-4000-8000-000000000002',
    type: 'ai',
    digitalSourceType: null,
    mode: 'offchain',
    status: 'confirmed',
    contentHash,
    contentType: 'text/plain',
    chainId: 31337,
    schemaUid: SCHEMA_UID,
    attester: signer.address,
    txHash: null,
    blockNumber: null,
    // as PostgreSQL writes a jsonb value's text: its own spacing and key order
    offchain: JSON.stringify(signed).replaceAll(',"', ', "').replaceAll('":', '": '),
    createdAt: new Date('2026-11-28T12:00:00.123Z'),
    revokedAt: null,
    revocationTxHash: null,
    refUid: null,
    aiModel: null,
    aiPromptHash: null,
    aiOffchain: null,
    offchainUid: null,
    onchainUid: null,
    anchorProof: Buffer.concat([randomBytes(32), randomBytes(32)]),
    anchor: { root: hex(32), txHash: hex(32), blockNumber: 12, timestamp: '2026-11-28 12:01:00+00' },
    delegated: false,
    claimantName: null,
    claimantDomain: null,
    ...overrides,
  };
}

describe("a read's answer as spliced JSON text", () => {
  it('is the record toRecord builds, field for field, and exactly what the documented schema allows', () => {
    for (const row of [
      offchainRow(),
      offchainRow({ anchor: null, anchorProof: null, revokedAt: new Date(), revocationTxHash: hex(32) }),
      offchainRow({ mode: 'onchain', offchain: null, txHash: hex(32), blockNumber: 99n, anchor: null }),
      offchainRow({ delegated: true, claimantName: 'Acme "News" <b>' }),
      offchainRow({ delegated: true, claimantName: 'Acme', claimantDomain: 'acme.example' }),
      offchainRow({
        aiModel: 'gpt-image-1',
        aiPromptHash: hex(32),
        aiOffchain: JSON.stringify(signer.sign(encodeAiDetailsData('gpt-image-1', null), 1, hex(32) as `0x${string}`)),
      }),
    ]) {
      const answer = heldJson(Buffer.from(recordText(row, 'http://verify.test')));
      const parsed = JSON.parse(answer.text.toString()) as unknown;
      expect(parsed).toEqual(toRecord(row, 'http://verify.test'));
      expect(attestationRecord.strict().parse(parsed)).toEqual(parsed);
      // what tRPC's own responses serialise: the same record
      expect(JSON.parse(JSON.stringify(answer))).toEqual(parsed);
    }
  });

  it('a page of records, and an empty one, parse as the search output', () => {
    const rows = [offchainRow(), offchainRow({ id: 3n })];
    for (const [page, cursor] of [
      [rows, 'abc'],
      [[], null],
    ] as const) {
      const answer = recordPageAnswer([...page], cursor, 'http://verify.test');
      const parsed = JSON.parse(answer.text.toString()) as { data: unknown[]; nextCursor: string | null };
      expect(searchOutput.parse(parsed)).toEqual(parsed);
      expect(parsed).toEqual({ data: page.map((r) => toRecord(r, 'http://verify.test')), nextCursor: cursor });
    }
  });
});
