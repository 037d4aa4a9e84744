import { randomBytes } from 'node:crypto';
import type { Attestation, Provenance } from '@attestation-service/client';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { encodeAttestationData, SCHEMA_UID } from '@attestation-service/protocol';
import { createOffchainSigner } from '@attestation-service/server/testing';
import { badgeJson } from '../src/badge/json.ts';
import { attestationPage } from '../src/html/attestation-page.ts';
import type { EasReader } from '../src/verdict/eas.ts';
import { createVerifier } from '../src/verdict/verify.ts';

const EAS = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' as Hex;
const KEY = `0x${randomBytes(32).toString('hex')}` as Hex;
const ATTESTER = privateKeyToAccount(KEY).address;
const anchors = { chainId: 31337, eas: EAS, attester: ATTESTER };
const uid = () => `0x${randomBytes(32).toString('hex')}`;

/** An off-chain record as the service signs one deriving from `signedRef`, showing `shownRef` as its refUid. */
function derivedRecord(signedRef: string, shownRef: string | null = signedRef): Attestation {
  const signer = createOffchainSigner({
    privateKey: KEY,
    domain: { name: 'EAS Attestation', version: '1.4.0', chainId: 31337, verifyingContract: EAS },
    schemaUid: SCHEMA_UID,
  });
  const contentHash = uid() as Hex;
  const pkg = signer.sign(encodeAttestationData(contentHash, 'human'), 1_790_000_000, signedRef as Hex);
  return {
    uid: pkg.sig.uid,
    type: 'human',
    digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCreation',
    mode: 'offchain',
    contentHash,
    contentType: 'text/plain',
    chainId: 31337,
    schemaUid: SCHEMA_UID,
    attester: ATTESTER,
    claimant: { kind: 'service', address: ATTESTER, accountName: null, domain: null },
    refUid: shownRef,
    txHash: null,
    blockNumber: null,
    createdAt: new Date().toISOString(),
    revoked: false,
    revokedAt: null,
    revocationTxHash: null,
    verifyUrl: 'x',
    offchain: pkg,
    anchor: null,
  } as Attestation;
}

const link = (u: string, refUid: string | null, verdict: 'valid' | 'revoked') => ({
  uid: u,
  refUid,
  type: 'human' as const,
  mode: 'offchain' as const,
  attester: ATTESTER,
  txHash: null,
  createdAt: new Date().toISOString(),
  revokedAt: verdict === 'revoked' ? new Date().toISOString() : null,
  verdict,
  verifyUrl: `https://verify.example/${u}`,
});

function verifierOf(record: Attestation, provenance: () => Promise<Provenance>) {
  const records = { get: async () => record, search: async () => [], provenance };
  const eas = {
    getRevokeOffchain: async () => 0n,
    version: async () => '1.4.0',
    getTimestamp: async () => 0n,
  } as unknown as EasReader;
  return createVerifier({ records, eas, anchors, cacheTtlMs: 0 });
}

describe('the chain of origins on the page and the badge', () => {
  it('shows "Derived from" each origin with its verdict, newest first, in the page and the badge JSON', async () => {
    const [middle, origin] = [uid(), uid()];
    const record = derivedRecord(middle);
    const chain: Provenance = {
      uid: record.uid,
      links: [link(record.uid, middle, 'valid'), link(middle, origin, 'revoked'), link(origin, null, 'valid')],
      truncated: false,
    };
    const verdict = await verifierOf(record, async () => chain).verify(record.uid, '203.0.113.9');
    expect(verdict.state).toBe('verified');
    expect(verdict.checks.find((c) => c.label === 'Derived from')?.ok).toBe(true);

    const page = attestationPage(verdict, 'https://verify.example');
    expect(page).toContain('data-provenance="chain"');
    const shown = [...page.matchAll(/data-link-verdict="(\w+)">\s*Derived from <a href="\/(0x[0-9a-f]{64})"/g)];
    expect(shown.map((m) => [m[2], m[1]])).toEqual([
      [middle, 'revoked'],
      [origin, 'valid'],
    ]);

    const badge = badgeJson(verdict, 'https://verify.example')!;
    expect(badge.derivedFrom).toEqual([
      { uid: middle, verdict: 'revoked', verifyUrl: `https://verify.example/${middle}` },
      { uid: origin, verdict: 'valid', verifyUrl: `https://verify.example/${origin}` },
    ]);
    expect(badge.derivedFromTruncated).toBe(false);
  });

  it('is a mismatch when the record shows another origin than the one signed', async () => {
    const record = derivedRecord(uid(), uid());
    const verdict = await verifierOf(record, async () => ({ uid: record.uid, links: [], truncated: false })).verify(
      record.uid,
      '203.0.113.9',
    );
    expect(verdict.state).toBe('mismatch');
    expect(verdict.checks.find((c) => c.label === 'Derived from')?.ok).toBe(false);
  });

  it('escapes what the API says of a link, and still names the signed origin when the chain is not readable', async () => {
    const signed = uid();
    const record = derivedRecord(signed);
    const hostile = {
      uid: record.uid,
      links: [link(record.uid, signed, 'valid'), link('<script>alert(1)</script>', null, 'valid')],
      truncated: true,
    } as Provenance;
    const page = attestationPage(await verifierOf(record, async () => hostile).verify(record.uid, '203.0.113.9'), 'x');
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).toContain('&lt;script&gt;');
    expect(page).toContain('data-provenance="truncated"');

    const down = await verifierOf(record, () => Promise.reject(new Error('API down'))).verify(
      record.uid,
      '203.0.113.9',
    );
    expect(down.state).toBe('verified');
    expect(attestationPage(down, 'x')).toContain(`data-provenance="unchecked"><a href="/${signed}"`);
  });

  it('links an off-chain original and its promotion both ways, on the page and in the badge', async () => {
    const onchain = uid();
    const original = { ...derivedRecord(uid()), onchainUid: onchain, offchainUid: null } as Attestation;
    const verdict = await verifierOf(original, async () => ({ uid: original.uid, links: [], truncated: false })).verify(
      original.uid,
      '203.0.113.9',
    );
    expect(attestationPage(verdict, 'x')).toContain(`data-promotion="onchain"><a href="/${onchain}"`);
    expect(badgeJson(verdict, 'https://verify.example')).toMatchObject({ onchainUid: onchain, offchainUid: null });

    const hostile = { ...original, onchainUid: null, offchainUid: '"><script>x</script>' } as Attestation;
    const page = attestationPage({ ...verdict, record: hostile }, 'x');
    expect(page).toContain('data-promotion="offchain"');
    expect(page).not.toContain('<script>x</script>');
  });
});
