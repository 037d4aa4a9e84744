import { randomBytes } from 'node:crypto';
import type { Attestation } from '@attestation-service/client';
import { keccak256, recoverAddress, toHex, type Hex } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import {
  createOffchainSigner,
  encodeAttestationData,
  offchainUid as serverOffchainUid,
  SCHEMA_UID as SERVER_SCHEMA_UID,
} from '@attestation-service/server/testing';
import { badgeSvg } from '../src/badge/svg.ts';
import { html } from '../src/html/escape.ts';
import { SCHEMA_UID, type EasReader } from '../src/verdict/eas.ts';
import { offchainUid } from '../src/verdict/offchain.ts';
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
    schemaUid: SERVER_SCHEMA_UID,
  });
  const pkg = signer.sign(encodeAttestationData(CONTENT_HASH, 'human'), 1_790_000_000);
  return {
    uid: pkg.sig.uid,
    type: 'human',
    mode: 'offchain',
    contentHash: CONTENT_HASH,
    contentType: 'text/plain',
    chainId: 31337,
    schemaUid: SERVER_SCHEMA_UID,
    attester: ATTESTER,
    claimant: { kind: 'service', address: ATTESTER, accountName: null },
    txHash: null,
    blockNumber: null,
    createdAt: new Date().toISOString(),
    revoked: false,
    revokedAt: null,
    revocationTxHash: null,
    verifyUrl: 'x',
    offchain: pkg,
    anchor: null,
    ...overrides,
  };
}

function fakes(record: Attestation | null, chain: Partial<EasReader> = {}) {
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
  return { calls, verifier: createVerifier({ records, eas, anchors, cacheTtlMs: 60_000 }) };
}

const failed = (v: { checks: { label: string; ok: boolean }[] }) => v.checks.filter((c) => !c.ok).map((c) => c.label);

describe('the verdict on an off-chain attestation', () => {
  it('re-derives the schema UID and the off-chain UID exactly as the service (and the EAS SDK) do', () => {
    expect(SCHEMA_UID).toBe(SERVER_SCHEMA_UID);
    const m = offchainRecord().offchain!.sig.message;
    expect(offchainUid(m)).toBe(
      serverOffchainUid({
        ...m,
        schema: m.schema as Hex,
        recipient: m.recipient as Hex,
        refUID: m.refUID as Hex,
        data: m.data as Hex,
        salt: m.salt as Hex,
        time: BigInt(m.time),
        expirationTime: BigInt(m.expirationTime),
      }),
    );
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

describe('rendering', () => {
  it('escapes interpolated text and keeps nested safe markup', () => {
    expect(html`<p title="${'"><script>'}">${html`<b>${'<i>'}</b>`}</p>`.__html).toBe(
      '<p title="&quot;&gt;&lt;script&gt;"><b>&lt;i&gt;</b></p>',
    );
  });

  it('names the badge for assistive technology', () => {
    const svg = badgeSvg({ state: 'verified', record: offchainRecord() });
    expect(svg).toContain('aria-label="attestation: Human-made · verified"');
    expect(svg).toContain('<title>attestation: Human-made · verified</title>');
  });
});
