import { EAS, Offchain, OffchainAttestationVersion } from '@ethereum-attestation-service/eas-sdk';
import { createHash } from 'node:crypto';
import {
  DELEGATED_ATTEST_TYPES,
  DELEGATED_DOMAIN_NAME,
  encodeAttestationData,
  OFFCHAIN_ATTEST_TYPES,
  OFFCHAIN_DOMAIN_NAME,
  SCHEMA,
} from '@attestation-service/protocol';
import {
  createPublicClient,
  decodeAbiParameters,
  http,
  parseAbiParameters,
  zeroAddress,
  zeroHash,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { EAS_ARTIFACT } from '../../src/chain/eas-artifacts.ts';
import { call, type TestService } from '../support/service.ts';

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

/** An EAS delegated `Attest` request (v2, EAS 1.4) signed by the account, as the body's `delegation`. */
export async function signOnchain(
  account: PrivateKeyAccount,
  signing: Signing,
  item: { type: 'human' | 'ai'; contentHash: Hex; nonce: string; deadline: string; refUid?: Hex },
) {
  const signature = await account.signTypedData({
    domain: {
      name: DELEGATED_DOMAIN_NAME,
      version: signing.easVersion,
      chainId: signing.chainId,
      verifyingContract: signing.eas,
    },
    types: DELEGATED_ATTEST_TYPES,
    primaryType: 'Attest',
    message: {
      attester: account.address,
      schema: signing.schemaUid,
      recipient: zeroAddress,
      expirationTime: 0n,
      revocable: true,
      refUID: item.refUid ?? zeroHash,
      data: encodeAttestationData(item.contentHash, item.type),
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
  item: { type: 'human' | 'ai'; contentHash: Hex; time: number; salt?: Hex; refUid?: Hex },
) {
  const salt = item.salt ?? (`0x${createHash('sha256').update(String(Math.random())).digest('hex')}` as Hex);
  const signature = await account.signTypedData({
    domain: {
      name: OFFCHAIN_DOMAIN_NAME,
      version: signing.easVersion,
      chainId: signing.chainId,
      verifyingContract: signing.eas,
    },
    types: OFFCHAIN_ATTEST_TYPES,
    primaryType: 'Attest',
    message: {
      version: 2,
      schema: signing.schemaUid,
      recipient: zeroAddress,
      time: BigInt(item.time),
      expirationTime: 0n,
      revocable: true,
      refUID: item.refUid ?? zeroHash,
      data: encodeAttestationData(item.contentHash, item.type),
      salt,
    },
  });
  return { attester: account.address, signature, time: String(item.time), salt };
}

export const inAnHour = () => String(Math.floor(Date.now() / 1000) + 3600);

/** The attestation as EAS holds it, its data decoded by our schema. */
export async function onEas(svc: TestService, uid: string) {
  const chain = createPublicClient({ transport: http(svc.config.chain.rpcUrl) });
  const held = (await chain.readContract({
    address: svc.config.chain.easAddress as Hex,
    abi: EAS_ARTIFACT.abi,
    functionName: 'getAttestation',
    args: [uid as Hex],
  })) as { uid: Hex; schema: Hex; attester: Hex; refUID: Hex; data: Hex };
  const [contentHash, aiGenerated] = decodeAbiParameters(parseAbiParameters(SCHEMA), held.data);
  return { ...held, contentHash, aiGenerated };
}

/** Whether the EAS SDK's own check takes an off-chain package (as the API answers it) as signed by `signer`. */
export function easSdkVerifies(pkg: { sig: any }, signer: string): boolean {
  const { sig } = pkg;
  const offchain = new Offchain(
    { address: sig.domain.verifyingContract, version: sig.domain.version, chainId: BigInt(sig.domain.chainId) },
    OffchainAttestationVersion.Version2,
    new EAS(sig.domain.verifyingContract),
  );
  return offchain.verifyOffchainAttestationSignature(signer, {
    ...sig,
    domain: { ...sig.domain, chainId: BigInt(sig.domain.chainId) },
    message: { ...sig.message, time: BigInt(sig.message.time), expirationTime: BigInt(sig.message.expirationTime) },
  });
}
