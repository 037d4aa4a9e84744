import { randomBytes } from 'node:crypto';
import type { Attestation } from '@attestation-service/client';
import { keccak256, recoverAddress, toHex, type Hex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { encodeAttestationData, offchainUid, SCHEMA_UID } from '@attestation-service/protocol';
import { createOffchainSigner } from '@attestation-service/server/testing';
import { badgeSvg } from '../src/badge/svg.ts';
import { attestationPage } from '../src/html/attestation-page.ts';
import { html } from '../src/html/escape.ts';
import type { EasReader } from '../src/verdict/eas.ts';
import type { StatusListChecker, StatusListSignal } from '../src/verdict/types.ts';
import { recoverSigner } from '../src/verdict/recover.ts';
import { createVerifier } from '../src/verdict/verify.ts';

const EAS = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' as Hex;
const KEY = `0x${randomBytes(32).toString('hex')}` as Hex;
const ATTESTER = privateKeyToAccount(KEY).address;
const anchors = { chainId: 31337, eas: EAS, attester: ATTESTER };
const CONTENT_HASH = `0x${'5a'.repeat(32)}` as Hex;

function offchainRecord(overrides: Partial<Attestation> = {}): Attestation {
  const signer = createOffchainSigner({
    privateKey: KEY,
    domain: { name: 'EAS Attestation', version: '1.4.0', chainId: 31337, verifyingContract: EAS },
    schemaUid: SCHEMA_UID,
  });
  const pkg = signer.sign(encodeAttestationData(CONTENT_HASH, 'human'), 1_790_000_000);
  return {
    uid: pkg.sig.uid,
    type: 'human',
    digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCreation',
    mode: 'offchain',
    contentHash: CONTENT_HASH,
    contentType: 'text/plain',
    chainId: 31337,
    schemaUid: SCHEMA_UID,
    attester: ATTESTER,
    claimant: { kind: 'service', address: ATTESTER, accountName: null, domain: null },
    txHash: null,
    blockNumber: null,
    createdAt: new Date().toISOString(),
    revoked: false,
    revokedAt: null,
    revocationTxHash: null,
    refUid: null,
    ai: null,
    offchainUid: null,
    onchainUid: null,
    verifyUrl: 'x',
    offchain: pkg,
    anchor: null,
    ...overrides,
  };
}

function fakes(record: Attestation | null, chain: Partial<EasReader> = {}, statusList?: StatusListChecker) {
  const calls = { get: 0 };
  const records = { get: async () => (calls.get++, record), search: async () => [] };
  const eas: EasReader = {
    getAttestation: async () => {
      throw new Error('not used');
    },
    getRevokeOffchain: async () => 0n,
    version: async () => '1.4.0',
    attestedIn: async () => undefined,
    getTimestamp: async () => 0n,
    timestampedIn: async () => undefined,
    ...chain,
  };
  return { calls, verifier: createVerifier({ records, eas, anchors, cacheTtlMs: 60_000, statusList }) };
}

const failed = (v: { checks: { label: string; ok: boolean }[] }) => v.checks.filter((c) => !c.ok).map((c) => c.label);

describe('the verdict on an off-chain attestation', () => {
  it('re-derives the off-chain UID of a package the service signed, from its fields as JSON carries them', () => {
    const { sig } = offchainRecord().offchain!;
    expect(offchainUid(sig.message)).toBe(sig.uid);
  });

  it('recovers signers exactly as viem does (libsecp256k1 when it loads), and none from garbage', async () => {
    for (let i = 0; i < 20; i++) {
      const digest = keccak256(toHex(`digest ${i}`));
      const { r, s, v } = await sign({ hash: digest, privateKey: KEY });
      expect(await recoverSigner(digest, { r, s, v: Number(v) })).toBe(
        await recoverAddress({ hash: digest, signature: { r, s, v: v! } }),
      );
    }
    expect(
      await recoverSigner(keccak256('0x01'), { r: `0x${'00'.repeat(32)}`, s: `0x${'00'.repeat(32)}`, v: 27 }),
    ).toBeUndefined();
    expect(
      await recoverSigner(keccak256('0x01'), { r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}`, v: 29 }),
    ).toBeUndefined();
  });

  it('is verified when the signature recovers to the attester and nothing is revoked', async () => {
    const record = offchainRecord();
    const v = await fakes(record).verifier.verify(record.uid, '1.2.3.4');
    expect(failed(v)).toEqual([]);
    expect(v.state).toBe('verified');
  });

  it('is a mismatch when the signature, the signed data or the attester is not what the record says', async () => {
    const record = offchainRecord();
    const forged = structuredClone(record);
    forged.offchain!.sig.signature.s = `0x${'12'.repeat(32)}`;
    expect(failed(await fakes(forged).verifier.verify(record.uid, 'ip'))).toContain('Signature');
    expect(
      failed(await fakes({ ...record, contentHash: `0x${'00'.repeat(32)}` }).verifier.verify(record.uid, 'ip')),
    ).toEqual(['Content hash']);
    expect(failed(await fakes({ ...record, type: 'ai' }).verifier.verify(record.uid, 'ip'))).toEqual(['Origin']);
    const moved = structuredClone(record);
    moved.offchain!.sig.message.time = '1790000001';
    expect(failed(await fakes(moved).verifier.verify(record.uid, 'ip'))).toEqual(
      expect.arrayContaining(['Signature', 'Off-chain UID']),
    );
    expect(failed(await fakes(record, { version: async () => '1.3.0' }).verifier.verify(record.uid, 'ip'))).toEqual([
      'Domain',
    ]);
  });

  it('is revoked when getRevokeOffchain says so, and a mismatch when only our database says so', async () => {
    const record = offchainRecord({ revoked: true, revokedAt: new Date().toISOString() });
    expect(
      (await fakes(record, { getRevokeOffchain: async () => 1_790_000_100n }).verifier.verify(record.uid, 'ip')).state,
    ).toBe('revoked');
    const v = await fakes(record).verifier.verify(record.uid, 'ip');
    expect([v.state, failed(v)]).toEqual(['mismatch', ['Revocation']]);
  });

  it('is unavailable (and not remembered) when the chain does not answer; verdicts are reused for the TTL', async () => {
    const record = offchainRecord();
    let down = true;
    const { verifier, calls } = fakes(record, {
      getRevokeOffchain: async () => {
        if (down) throw new Error('ECONNREFUSED');
        return 0n;
      },
    });
    expect((await verifier.verify(record.uid, 'ip')).state).toBe('unavailable');
    down = false;
    expect((await verifier.verify(record.uid, 'ip')).state).toBe('verified');
    expect((await verifier.verify(record.uid.toUpperCase().replace('0X', '0x'), 'ip')).state).toBe('verified');
    expect(calls.get).toBe(2);
  });

  it('is not found for a malformed uid without asking anyone', async () => {
    const { verifier, calls } = fakes(offchainRecord());
    expect((await verifier.verify('0x1234', 'ip')).state).toBe('not-found');
    expect(calls.get).toBe(0);
  });
});

describe('the status list beside the chain', () => {
  /** A status list that answers these signals in turn (the last one again after them); `fresh` asks are counted. */
  function listSaying(...signals: StatusListSignal[]) {
    const asked = { fresh: 0 };
    const checker: StatusListChecker = {
      check: async (_record, _ip, fresh) => {
        if (fresh) asked.fresh++;
        return signals.length > 1 ? signals.shift()! : signals[0]!;
      },
    };
    return { asked, checker };
  }
  const notRevoked = { state: 'not-revoked', list: '0', index: 7 } as const;
  const revoked = { state: 'revoked', list: '0', index: 7 } as const;

  it('is verified when the list agrees with the chain, and the verdict carries its word', async () => {
    const record = offchainRecord();
    const v = await fakes(record, {}, listSaying(notRevoked).checker).verifier.verify(record.uid, 'ip');
    expect([v.state, v.statusList]).toEqual(['verified', notRevoked]);
    expect(v.checks.find((c) => c.label === 'Status list')).toMatchObject({ ok: true });
  });

  it('reads a list that disagrees with the chain afresh, and is a mismatch when it still disagrees', async () => {
    const record = offchainRecord();
    const stale = listSaying(revoked, notRevoked);
    const settled = await fakes(record, {}, stale.checker).verifier.verify(record.uid, 'ip');
    expect([settled.state, settled.statusList, stale.asked.fresh]).toEqual(['verified', notRevoked, 1]);
    const lying = listSaying(revoked);
    const v = await fakes(record, {}, lying.checker).verifier.verify(record.uid, 'ip');
    expect([v.state, failed(v), lying.asked.fresh]).toEqual(['mismatch', ['Status list'], 1]);
    const page = attestationPage(v, 'https://verify.example');
    expect(page).toContain('data-revocation-by="eas" data-state="not-revoked"');
    expect(page).toContain('data-revocation-by="status-list" data-state="revoked"');
    expect(page).toContain('data-revocation-agreement="disagree"');
    expect(attestationPage(settled, 'https://verify.example')).not.toContain('data-revocation-agreement');
  });

  it('leaves the verdict to the chain when the list could not be checked, and says so', async () => {
    const record = offchainRecord();
    const unchecked = { state: 'unchecked', reason: 'the API did not answer' } as const;
    const v = await fakes(record, {}, listSaying(unchecked).checker).verifier.verify(record.uid, 'ip');
    expect([v.state, v.statusList, v.checks.some((c) => c.label === 'Status list')]).toEqual([
      'verified',
      unchecked,
      false,
    ]);
    const unsound = { state: 'unsound', reason: 'its signature does not verify' } as const;
    const bad = await fakes(record, {}, listSaying(unsound).checker).verifier.verify(record.uid, 'ip');
    expect([bad.state, failed(bad)]).toEqual(['mismatch', ['Status list']]);
    expect(attestationPage(v, 'https://verify.example')).toContain(
      'data-revocation-by="status-list" data-state="unchecked"',
    );
    const none = await fakes(record).verifier.verify(record.uid, 'ip');
    expect(none.statusList).toMatchObject({ state: 'unchecked' });
  });
});

describe('rendering', () => {
  it('escapes interpolated text and keeps nested safe markup', () => {
    expect(html`<p title="${'"><script>'}">${html`<b>${'<i>'}</b>`}</p>`.__html).toBe(
      '<p title="&quot;&gt;&lt;script&gt;"><b>&lt;i&gt;</b></p>',
    );
  });

  it('names the badge for assistive technology', () => {
    const svg = badgeSvg({ state: 'verified', record: offchainRecord() });
    expect(svg).toContain('aria-label="attestation: Human-made (digital creation) · verified"');
    expect(svg).toContain('<title>attestation: Human-made (digital creation) · verified</title>');
  });
});
