import { privateKeyToAccount } from 'viem/accounts';
import { ecdsaImplementation } from '../src/attestations/ecdsa.ts';
import { createOffchainSigner } from '../src/attestations/offchain.ts';
import {
  encodeAttestationData,
  OFFCHAIN_ATTEST_TYPES,
  SCHEMA_UID,
  type OffchainDomain,
} from '@attestation-service/protocol';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const domain: OffchainDomain = {
  name: 'EAS Attestation',
  version: '1.4.0',
  chainId: 31337,
  verifyingContract: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
};

async function rate(fn: () => unknown, ms = 2000): Promise<number> {
  for (let i = 0; i < 200; i++) await fn();
  let n = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    await fn();
    n++;
  }
  return Math.round(n / ((performance.now() - started) / 1000));
}

/** Off-chain signatures per second on one core: ours next to viem's signTypedData of the same message. */
export async function measureSigning(): Promise<{ ours: number; viem: number; implementation: string }> {
  const data = encodeAttestationData(`0x${'ab'.repeat(32)}`, 'human');
  const signer = createOffchainSigner({ privateKey: KEY, domain, schemaUid: SCHEMA_UID });
  const account = privateKeyToAccount(KEY);
  const message = {
    version: 2,
    schema: SCHEMA_UID,
    recipient: `0x${'00'.repeat(20)}` as const,
    time: 1n,
    expirationTime: 0n,
    revocable: true,
    refUID: `0x${'00'.repeat(32)}` as const,
    data,
    salt: `0x${'11'.repeat(32)}` as const,
  };
  const ours = await rate(() => signer.sign(data, 1));
  const viem = await rate(() =>
    account.signTypedData({ domain, types: OFFCHAIN_ATTEST_TYPES, primaryType: 'Attest', message }),
  );
  return { ours, viem, implementation: ecdsaImplementation };
}
