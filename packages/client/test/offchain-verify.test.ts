// verifyOffchain against packages the server's own signer makes (the one behind POST /v1/attestations), so the SDK
// and the service cannot drift apart on the EIP-712 types or the UID; then each way a package can be forged.
import { parseSignature } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { createOffchainSigner } from '../../server/src/attestations/offchain.ts';
import { encodeAttestationData, OFFCHAIN_ATTEST_TYPES, SCHEMA_UID } from '@attestation-service/protocol';
import { offchainUid, verifyOffchain, type OffchainPackage } from '../src/index.ts';

const KEY = `0x${'11'.repeat(32)}` as const;
const OTHER_KEY = `0x${'22'.repeat(32)}` as const;
const EAS = '0x4200000000000000000000000000000000000021';
const domain = { name: 'EAS Attestation', version: '1.4.0', chainId: 84532, verifyingContract: EAS } as const;
const CONTENT_HASH = `0x${'ab'.repeat(32)}` as const;
const TIME = 1_795_000_000;

function signed(key: `0x${string}` = KEY): OffchainPackage {
  const signer = createOffchainSigner({ privateKey: key, domain, schemaUid: SCHEMA_UID });
  // through JSON, as a client receives it
  return JSON.parse(JSON.stringify(signer.sign(encodeAttestationData(CONTENT_HASH, 'ai'), TIME))) as OffchainPackage;
}

const attester = privateKeyToAccount(KEY).address;

describe('verifyOffchain', () => {
  it('accepts the service’s package: the signer, the recomputed uid, the time and the claim', async () => {
    const pkg = signed();
    const result = await verifyOffchain(pkg, { attester, uid: pkg.sig.uid, chainId: 84532, easAddress: EAS });
    expect(result).toEqual({
      valid: true,
      attester,
      uid: pkg.sig.uid,
      time: new Date(TIME * 1000),
      chainId: 84532,
      easAddress: EAS,
      schema: SCHEMA_UID,
      refUid: null,
      claim: { contentHash: CONTENT_HASH, type: 'ai' },
      ai: null,
    });
    expect(offchainUid(pkg.sig.message)).toBe(pkg.sig.uid);
  });

  it('accepts 0/1 as v, as some signers write it, and a lower-case attester', async () => {
    const pkg = signed();
    pkg.sig.signature.v -= 27;
    expect(await verifyOffchain(pkg, { attester: attester.toLowerCase() })).toMatchObject({ valid: true });
  });

  it('refuses a package signed by another key than the attester expected (wrong_attester)', async () => {
    const result = await verifyOffchain(signed(OTHER_KEY), { attester });
    expect(result).toMatchObject({ valid: false, reason: 'wrong_attester' });
  });

  it('refuses a package whose signer field was swapped for the expected address (wrong_attester)', async () => {
    const pkg = signed(OTHER_KEY);
    pkg.signer = attester;
    expect(await verifyOffchain(pkg)).toMatchObject({ valid: false, reason: 'wrong_attester' });
  });

  it('refuses changed signed data even with a uid recomputed to match (wrong_attester)', async () => {
    const pkg = signed();
    pkg.sig.message.data = encodeAttestationData(CONTENT_HASH, 'human');
    pkg.sig.uid = offchainUid(pkg.sig.message);
    expect(await verifyOffchain(pkg, { attester })).toMatchObject({ valid: false, reason: 'wrong_attester' });
  });

  it('refuses a uid that is not the hash of the signed fields, or not the record’s (uid_mismatch)', async () => {
    const pkg = signed();
    const other = signed();
    expect(await verifyOffchain(pkg, { attester, uid: other.sig.uid })).toMatchObject({ reason: 'uid_mismatch' });
    pkg.sig.uid = other.sig.uid;
    expect(await verifyOffchain(pkg, { attester })).toMatchObject({ valid: false, reason: 'uid_mismatch' });
  });

  it('refuses a signature bound to another chain or EAS contract than asked (wrong_domain)', async () => {
    expect(await verifyOffchain(signed(), { attester, chainId: 8453 })).toMatchObject({ reason: 'wrong_domain' });
    const elsewhere = await verifyOffchain(signed(), { attester, easAddress: `0x${'00'.repeat(19)}01` });
    expect(elsewhere).toMatchObject({ valid: false, reason: 'wrong_domain' });
  });

  it('answers a garbled signature with bad_signature or wrong_attester, never a throw', async () => {
    const pkg = signed();
    pkg.sig.signature.r = `0x${'ff'.repeat(32)}`;
    const result = await verifyOffchain(pkg, { attester });
    expect(result.valid).toBe(false);
    expect(['bad_signature', 'wrong_attester']).toContain(!result.valid && result.reason);
  });

  it('answers input that is not a package without throwing (no_package, unsupported_version, malformed)', async () => {
    expect(await verifyOffchain(null)).toMatchObject({ valid: false, reason: 'no_package' });
    expect(await verifyOffchain({ sig: 'x' } as never)).toMatchObject({ reason: 'unsupported_version' });
    const pkg = signed();
    (pkg.sig.message as { time: string }).time = '1e9';
    expect(await verifyOffchain(pkg)).toMatchObject({ valid: false, reason: 'malformed' });
    const noSignature = signed();
    (noSignature.sig as { signature: unknown }).signature = null;
    expect(await verifyOffchain(noSignature)).toMatchObject({ valid: false, reason: 'malformed' });
  });

  it('refuses an attestation past its expiration time (expired), and keeps one that never expires', async () => {
    expect(await verifyOffchain(signed(), { attester, now: () => Date.UTC(2100, 0, 1) })).toMatchObject({
      valid: true,
    });
    // the service never sets an expiry: a package with one is signed here, as another EAS signer would
    const base = signed();
    const message = { ...base.sig.message, expirationTime: String(TIME + 60) };
    const signature = parseSignature(
      await privateKeyToAccount(KEY).signTypedData({
        domain,
        types: OFFCHAIN_ATTEST_TYPES,
        primaryType: 'Attest',
        message: { ...message, time: BigInt(TIME), expirationTime: BigInt(TIME + 60) } as never,
      }),
    );
    const expiring: OffchainPackage = {
      ...base,
      sig: {
        ...base.sig,
        message,
        uid: offchainUid(message),
        signature: { r: signature.r, s: signature.s, v: Number(signature.v) },
      },
    };
    expect(await verifyOffchain(expiring, { attester, now: () => (TIME + 30) * 1000 })).toMatchObject({ valid: true });
    expect(await verifyOffchain(expiring, { attester, now: () => (TIME + 60) * 1000 })).toMatchObject({
      valid: false,
      reason: 'expired',
    });
  });
});
