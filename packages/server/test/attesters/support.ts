import { createHash } from 'node:crypto';
import { encodeAbiParameters, zeroAddress, zeroHash, type Hex, type PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { call } from '../support/service.ts';

/** A customer's own key: a fresh one per test, so EAS nonces never meet. */
export const newCustomer = (): PrivateKeyAccount => privateKeyToAccount(generatePrivateKey());

export const sha256 = (text: string): Hex => `0x${createHash('sha256').update(text).digest('hex')}`;

/** Registers the account's address: a challenge, its message signed (EIP-191), handed back. */
export async function register(url: string, key: string, account: PrivateKeyAccount) {
  const challenge = await call(url, 'POST', '/v1/attesters/challenges', { key, body: { address: account.address } });
  if (challenge.status !== 201) return challenge;
  const signature = await account.signMessage({ message: challenge.body.message });
  return call(url, 'POST', '/v1/attesters', { key, body: { challengeId: challenge.body.id, signature } });
}

export interface Signing {
  chainId: number;
  eas: Hex;
  easVersion: string;
  schemaUid: Hex;
}

/** The attester's next nonce and what signatures are made under, as the service says. */
export async function nonceOf(url: string, key: string, address: string): Promise<{ nonce: string; signing: Signing }> {
  const res = await call(url, 'GET', `/v1/attesters/${address}/nonce`, { key });
  if (res.status !== 200) throw new Error(`nonce: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const data = (contentHash: Hex, type: 'human' | 'ai') =>
  encodeAbiParameters([{ type: 'bytes32' }, { type: 'bool' }], [contentHash, type === 'ai']);

/** An EAS delegated `Attest` request (v2, EAS 1.4) signed by the account, as the body's `delegation`. */
export async function signOnchain(
  account: PrivateKeyAccount,
  signing: Signing,
  item: { type: 'human' | 'ai'; contentHash: Hex; nonce: string; deadline: string },
) {
  const signature = await account.signTypedData({
    domain: { name: 'EAS', version: signing.easVersion, chainId: signing.chainId, verifyingContract: signing.eas },
    types: {
      Attest: [
        { name: 'attester', type: 'address' },
        { name: 'schema', type: 'bytes32' },
        { name: 'recipient', type: 'address' },
        { name: 'expirationTime', type: 'uint64' },
        { name: 'revocable', type: 'bool' },
        { name: 'refUID', type: 'bytes32' },
        { name: 'data', type: 'bytes' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint64' },
      ],
    },
    primaryType: 'Attest',
    message: {
      attester: account.address,
      schema: signing.schemaUid,
      recipient: zeroAddress,
      expirationTime: 0n,
      revocable: true,
      refUID: zeroHash,
      data: data(item.contentHash, item.type),
      value: 0n,
      nonce: BigInt(item.nonce),
      deadline: BigInt(item.deadline),
    },
  });
  return { attester: account.address, signature, nonce: item.nonce, deadline: item.deadline };
}

/** An EAS off-chain attestation (v2) signed by the account, as the body's `delegation`. */
export async function signOffchain(
  account: PrivateKeyAccount,
  signing: Signing,
  item: { type: 'human' | 'ai'; contentHash: Hex; time: number; salt?: Hex },
) {
  const salt = item.salt ?? (`0x${createHash('sha256').update(String(Math.random())).digest('hex')}` as Hex);
  const signature = await account.signTypedData({
    domain: {
      name: 'EAS Attestation',
      version: signing.easVersion,
      chainId: signing.chainId,
      verifyingContract: signing.eas,
    },
    types: {
      Attest: [
        { name: 'version', type: 'uint16' },
        { name: 'schema', type: 'bytes32' },
        { name: 'recipient', type: 'address' },
        { name: 'time', type: 'uint64' },
        { name: 'expirationTime', type: 'uint64' },
        { name: 'revocable', type: 'bool' },
        { name: 'refUID', type: 'bytes32' },
        { name: 'data', type: 'bytes' },
        { name: 'salt', type: 'bytes32' },
      ],
    },
    primaryType: 'Attest',
    message: {
      version: 2,
      schema: signing.schemaUid,
      recipient: zeroAddress,
      time: BigInt(item.time),
      expirationTime: 0n,
      revocable: true,
      refUID: zeroHash,
      data: data(item.contentHash, item.type),
      salt,
    },
  });
  return { attester: account.address, signature, time: String(item.time), salt };
}

export const inAnHour = () => String(Math.floor(Date.now() / 1000) + 3600);
