import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import type { AttesterNonce, CreateAttestationInput, Delegation } from './types.ts';

type Hex = `0x${string}`;

/**
 * Anything that signs EIP-712 typed data and EIP-191 messages as one address: a viem `LocalAccount` (from
 * `privateKeyToAccount`) or `WalletClient`-backed account as it is, or an adapter over ethers, a KMS or a wallet.
 */
export interface AttesterSigner {
  address: string;
  signTypedData(typedData: {
    domain: { name: string; version: string; chainId: number; verifyingContract: Hex };
    types: Record<string, readonly { name: string; type: string }[]>;
    primaryType: string;
    message: Record<string, unknown>;
  }): Promise<string>;
  /** Needed only to register the address (`attesters.register`). */
  signMessage?(args: { message: string }): Promise<string>;
}

const ZERO_ADDRESS: Hex = '0x0000000000000000000000000000000000000000';
const ZERO_HASH: Hex = `0x${'00'.repeat(32)}`;

/** EAS's delegated `Attest` request (EAS 1.4: the attester is part of what is signed). */
const DELEGATED_TYPES = {
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
} as const;

/** The EAS off-chain attestation, version 2 (what the service signs, and what verifyOffchain checks). */
export const OFFCHAIN_TYPES = {
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
} as const;

/** The SHA-256 the service stores for `content`: `0x` + 64 lower-case hex. */
export function contentHashOf(input: Pick<CreateAttestationInput, 'content' | 'contentHash'>): Hex {
  // synchronous in every runtime (Web Crypto's digest is async only)
  if (input.content !== undefined) return `0x${bytesToHex(sha256(utf8ToBytes(input.content)))}`;
  if (input.contentHash === undefined) throw new TypeError('give content or contentHash');
  return `0x${input.contentHash.replace(/^0x/i, '').toLowerCase()}`;
}

/** The schema's data (`bytes32 contentHash,bool aiGenerated`), ABI-encoded: two words. */
function schemaData(contentHash: Hex, type: CreateAttestationInput['type']): Hex {
  return `${contentHash}${(type === 'ai' ? '1' : '0').padStart(64, '0')}`;
}

export interface SignDelegationOptions {
  /** On-chain: when the request becomes void (Unix seconds); default one hour from now. 0 for never. */
  deadline?: number;
  /** Off-chain: the attestation's time (Unix seconds); default now. */
  time?: number;
}

/**
 * Signs an attestation as your registered attester: the EAS delegated request for an on-chain one (with the nonce
 * `attesters.nonce` gave), the EAS off-chain package's signature for an off-chain one. Returns the input with its
 * `delegation`, ready for `attestations.create` or a batch.
 */
export async function signDelegation(
  signer: AttesterSigner,
  next: AttesterNonce,
  input: CreateAttestationInput,
  options: SignDelegationOptions = {},
): Promise<CreateAttestationInput & { delegation: Delegation }> {
  const { signing } = next;
  const contentHash = contentHashOf(input);
  const data = schemaData(contentHash, input.type);
  const now = Math.floor(Date.now() / 1000);
  if ((input.mode ?? 'onchain') === 'onchain') {
    const deadline = String(options.deadline ?? now + 3600);
    const signature = await signer.signTypedData({
      domain: {
        name: 'EAS',
        version: signing.easVersion,
        chainId: signing.chainId,
        verifyingContract: signing.eas as Hex,
      },
      types: DELEGATED_TYPES,
      primaryType: 'Attest',
      message: {
        attester: signer.address,
        schema: signing.schemaUid,
        recipient: ZERO_ADDRESS,
        expirationTime: 0n,
        revocable: true,
        refUID: ZERO_HASH,
        data,
        value: 0n,
        nonce: BigInt(next.nonce),
        deadline: BigInt(deadline),
      },
    });
    return { ...input, delegation: { attester: signer.address, signature, nonce: next.nonce, deadline } };
  }
  const time = String(options.time ?? now);
  const salt: Hex = `0x${bytesToHex(crypto.getRandomValues(new Uint8Array(32)))}`;
  const signature = await signer.signTypedData({
    domain: {
      name: 'EAS Attestation',
      version: signing.easVersion,
      chainId: signing.chainId,
      verifyingContract: signing.eas as Hex,
    },
    types: OFFCHAIN_TYPES,
    primaryType: 'Attest',
    message: {
      version: 2,
      schema: signing.schemaUid,
      recipient: ZERO_ADDRESS,
      time: BigInt(time),
      expirationTime: 0n,
      revocable: true,
      refUID: ZERO_HASH,
      data,
      salt,
    },
  });
  return { ...input, delegation: { attester: signer.address, signature, time, salt } };
}

/** Signs a batch's items as one attester: on-chain items get consecutive nonces from `next.nonce`, in order. */
export async function signDelegations(
  signer: AttesterSigner,
  next: AttesterNonce,
  inputs: CreateAttestationInput[],
  options: SignDelegationOptions = {},
): Promise<Array<CreateAttestationInput & { delegation: Delegation }>> {
  let nonce = BigInt(next.nonce);
  const signed = [];
  for (const input of inputs) {
    const onchain = (input.mode ?? 'onchain') === 'onchain';
    signed.push(await signDelegation(signer, { ...next, nonce: String(nonce) }, input, options));
    if (onchain) nonce++;
  }
  return signed;
}
