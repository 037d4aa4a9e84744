import { randomBytes } from 'node:crypto';
import type { Attestation } from '@attestation-service/client';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  AI_DETAILS_SCHEMA_UID,
  encodeAiDetailsData,
  encodeAttestationData,
  SCHEMA_UID,
} from '@attestation-service/protocol';
import { createOffchainSigner } from '@attestation-service/server/testing';
import { badgeJson } from '../src/badge/json.ts';
import { badgeSvg } from '../src/badge/svg.ts';
import { attestationPage } from '../src/html/attestation-page.ts';
import type { EasReader } from '../src/verdict/eas.ts';
import { createVerifier } from '../src/verdict/verify.ts';

const EAS = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' as Hex;
const signer = createOffchainSigner({
  privateKey: `0x${randomBytes(32).toString('hex')}`,
  domain: { name: 'EAS Attestation', version: '1.4.0', chainId: 31337, verifyingContract: EAS },
  schemaUid: SCHEMA_UID,
});
const anchors = { chainId: 31337, eas: EAS, attester: signer.address };
const PROMPT_HASH = `0x${'7e'.repeat(32)}` as Hex;

/** An off-chain AI claim as the service makes one, with its AI details signed as a second attestation naming it. */
function aiRecord(model = 'gpt-image-1', detailsFor?: Hex): Attestation {
  const contentHash = `0x${randomBytes(32).toString('hex')}` as Hex;
  const pkg = signer.sign(encodeAttestationData(contentHash, 'ai'), 1_790_000_000);
  const details = signer.sign(
    encodeAiDetailsData(model, PROMPT_HASH),
    1_790_000_000,
    detailsFor ?? pkg.sig.uid,
    AI_DETAILS_SCHEMA_UID,
  );
  return {
    uid: pkg.sig.uid,
    type: 'ai',
    digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
    mode: 'offchain',
    contentHash,
    contentType: 'image/png',
    chainId: 31337,
    schemaUid: SCHEMA_UID,
    attester: signer.address,
    claimant: { kind: 'service', address: signer.address, accountName: null, domain: null },
    txHash: null,
    blockNumber: null,
    createdAt: new Date(1_790_000_000_000).toISOString(),
    revoked: false,
    revokedAt: null,
    revocationTxHash: null,
    refUid: null,
    offchainUid: null,
    onchainUid: null,
    verifyUrl: 'x',
    offchain: pkg,
    ai: { model, promptHash: PROMPT_HASH, offchain: details },
    anchor: null,
  };
}

function verifierOf(record: Attestation) {
  const eas = {
    getRevokeOffchain: async () => 0n,
    version: async () => '1.4.0',
    attestedIn: async () => undefined,
    getTimestamp: async () => 0n,
    timestampedIn: async () => undefined,
  } as unknown as EasReader;
  const records = { get: async () => record, search: async () => [] };
  return createVerifier({ records, eas, anchors, cacheTtlMs: 0 });
}

const failed = (v: { checks: { label: string; ok: boolean }[] }) => v.checks.filter((c) => !c.ok).map((c) => c.label);

describe('the verdict on an AI claim’s model', () => {
  it('is verified when the signed AI details name the claim and say what the record says', async () => {
    const record = aiRecord();
    const v = await verifierOf(record).verify(record.uid, 'ip');
    expect(failed(v)).toEqual([]);
    expect(v.checks.find((c) => c.label === 'AI details')).toMatchObject({ ok: true });
    expect(v.state).toBe('verified');
  });

  it('is a mismatch when the record shows another model or prompt hash, or details signed for another claim', async () => {
    const record = aiRecord();
    for (const ai of [
      { ...record.ai!, model: 'gpt-image-2' },
      { ...record.ai!, promptHash: null },
      { ...record.ai!, offchain: null },
      aiRecord('gpt-image-1', `0x${'01'.repeat(32)}`).ai,
    ]) {
      const v = await verifierOf({ ...record, ai }).verify(record.uid, 'ip');
      expect([v.state, failed(v)]).toEqual(['mismatch', ['AI details']]);
    }
  });

  it('shows the model on the page, the badge JSON and the SVG badge, escaped', async () => {
    // the API refuses markup in a model; the page must not trust that
    const hostile = '<img src=x onerror=alert(1)>';
    const record = aiRecord(hostile);
    const v = await verifierOf(record).verify(record.uid, 'ip');
    const page = attestationPage(v, 'https://verify.example');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain(hostile);
    expect(page).toContain(PROMPT_HASH);
    expect(badgeJson(v, 'https://verify.example')?.ai).toEqual({ model: hostile, promptHash: PROMPT_HASH });
    const svg = badgeSvg({ state: 'verified', record });
    expect(svg).toContain('model: &lt;img src=x onerror=alert(1)&gt;');
    expect(svg).not.toContain(hostile);
  });
});
