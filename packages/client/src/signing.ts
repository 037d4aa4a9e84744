import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import {
  DELEGATED_ATTEST_TYPES,
  DELEGATED_DOMAIN_NAME,
  encodeAttestationData,
  normalizeContentHash,
  OFFCHAIN_ATTEST_TYPES,
  OFFCHAIN_DOMAIN_NAME,
  OFFCHAIN_VERSION,
} from '@attestation-service/protocol';
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

/**
 * The SHA-256 the service stores for `content`, or the `contentHash` given (64 hex digits, `0x` optional, any case):
 * `0x` + 64 lower-case hex. A TypeError for a `contentHash` that is not one.
 */
export function contentHashOf(input: Pick<CreateAttestationInput, 'content' | 'contentHash'>): Hex {
  // synchronous in every runtime (Web Crypto's digest is async only)
  if (input.content !== undefined) return `0x${bytesToHex(sha256(utf8ToBytes(input.content)))}`;
  if (input.contentHash === undefined) throw new TypeError('give content or contentHash');
  return normalizeContentHash(input.contentHash);
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
  const data = encodeAttestationData(contentHash, input.type);
  // the claim it derives from is signed as its refUID, as the service signs its own claims' refUid
  const refUid = (input.refUid?.toLowerCase() ?? ZERO_HASH) as Hex;
  const now = Math.floor(Date.now() / 1000);
  // EAS's domain of this chain and contract, under the name of the kind of signature
  const domain = (name: string) => ({
    name,
    version: signing.easVersion,
    chainId: signing.chainId,
    verifyingContract: signing.eas as Hex,
  });
  if ((input.mode ?? 'onchain') === 'onchain') {
    const deadline = String(options.deadline ?? now + 3600);
    const signature = await signer.signTypedData({
      domain: domain(DELEGATED_DOMAIN_NAME),
      types: DELEGATED_ATTEST_TYPES,
      primaryType: 'Attest',
      message: {
        attester: signer.address,
        schema: signing.schemaUid,
        recipient: ZERO_ADDRESS,
        expirationTime: 0n,
        revocable: true,
        refUID: refUid,
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
    domain: domain(OFFCHAIN_DOMAIN_NAME),
    types: OFFCHAIN_ATTEST_TYPES,
    primaryType: 'Attest',
    message: {
      version: OFFCHAIN_VERSION,
      schema: signing.schemaUid,
      recipient: ZERO_ADDRESS,
      time: BigInt(time),
      expirationTime: 0n,
      revocable: true,
      refUID: refUid,
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
