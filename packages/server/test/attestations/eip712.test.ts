import fc from 'fast-check';
import { bytesToHex, hashTypedData, recoverTypedDataAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { ecdsaImplementation } from '../../src/attestations/ecdsa.ts';
import { attestDigester } from '../../src/attestations/eip712.ts';
import { createOffchainSigner } from '../../src/attestations/offchain.ts';
import { OFFCHAIN_ATTEST_TYPES, offchainUid, type OffchainDomain } from '@attestation-service/protocol';

const domain: OffchainDomain = {
  name: 'EAS Attestation',
  version: '1.4.0',
  chainId: 8453,
  verifyingContract: '0x4200000000000000000000000000000000000021',
};
const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => bytesToHex(b) as Hex);

describe('the precomputed EIP-712 digest of EAS Attest messages', () => {
  it('equals viem hashTypedData for any message', () => {
    const digest = attestDigester(domain);
    fc.assert(
      fc.property(
        hex(32),
        hex(20),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.boolean(),
        hex(32),
        fc.uint8Array({ maxLength: 200 }).map((b) => bytesToHex(b)),
        hex(32),
        (schema, recipient, time, expirationTime, revocable, refUID, data, salt) => {
          const message = { schema, recipient, time, expirationTime, revocable, refUID, data, salt };
          const expected = hashTypedData({
            domain,
            types: OFFCHAIN_ATTEST_TYPES,
            primaryType: 'Attest',
            message: { version: 2, ...message },
          });
          expect(bytesToHex(digest(message))).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it(`signs with ${ecdsaImplementation}, and viem recovers the attester from the signature`, async () => {
    const signer = createOffchainSigner({
      privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
      domain,
      schemaUid: `0x${'11'.repeat(32)}`,
    });
    for (let i = 0; i < 20; i++) {
      const pkg = signer.sign(bytesToHex(crypto.getRandomValues(new Uint8Array(64))), 1_800_000_000 + i);
      const { r, s, v } = pkg.sig.signature;
      const m = pkg.sig.message;
      const address = await recoverTypedDataAddress({
        domain,
        types: OFFCHAIN_ATTEST_TYPES,
        primaryType: 'Attest',
        message: { ...m, version: 2, time: BigInt(m.time), expirationTime: BigInt(m.expirationTime) } as never,
        signature: `${r}${s.slice(2)}${v.toString(16)}` as Hex,
      });
      expect(address).toBe(signer.address);
      expect(BigInt(s) <= 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n).toBe(true);
    }
  });

  it('gives every attestation a salt of its own, 32 random bytes, across the draws salts are taken from', () => {
    const signer = createOffchainSigner({
      privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
      domain,
      schemaUid: `0x${'11'.repeat(32)}`,
    });
    const salts = Array.from({ length: 1_000 }, () => signer.sign('0x', 1_800_000_000).sig.message.salt);
    for (const salt of salts) expect(salt).toMatch(/^0x[0-9a-f]{64}$/);
    expect(new Set(salts).size).toBe(salts.length);
    // one salt's 32 bytes are not another's shifted: each is drawn apart, not a window sliding over one buffer
    expect(new Set(salts.map((salt) => salt.slice(2, 34))).size).toBe(salts.length);
  });
});

describe('the off-chain UID', () => {
  it('equals the EAS SDK formula (viem encodePacked) for any message', async () => {
    const { encodePacked, keccak256, toHex, zeroAddress } = await import('viem');
    fc.assert(
      fc.property(
        hex(32),
        hex(20),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.boolean(),
        hex(32),
        fc.uint8Array({ maxLength: 100 }).map((b) => bytesToHex(b)),
        hex(32),
        (schema, recipient, time, revocable, refUID, data, salt) => {
          const expected = keccak256(
            encodePacked(
              [
                'uint16',
                'bytes',
                'address',
                'address',
                'uint64',
                'uint64',
                'bool',
                'bytes32',
                'bytes',
                'bytes32',
                'uint32',
              ],
              [2, toHex(schema), recipient, zeroAddress, time, 0n, revocable, refUID, data, salt, 0],
            ),
          );
          expect(offchainUid({ schema, recipient, time, expirationTime: 0n, revocable, refUID, data, salt })).toBe(
            expected,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
