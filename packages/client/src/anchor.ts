import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import type { AttestationAnchor } from './types.ts';

/** What verifyAnchor reads of a record: any object with a uid and an anchor (an `Attestation` from `get`). */
export interface AnchoredRecord {
  uid: string;
  /** null or absent until the service anchored the attestation. */
  anchor?: AttestationAnchor | null;
  /** The record's chain: picks the default EAS address and is compared with the RPC's chain. */
  chainId?: number;
}

export interface VerifyAnchorOptions {
  /** JSON-RPC of the chain the attestation was anchored on: yours, not the service's. */
  rpcUrl: string;
  /** The EAS contract; defaults to the OP Stack predeploy on Base and Optimism (and their Sepolia testnets). */
  easAddress?: string;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

export type AnchorFailure = 'not_anchored' | 'bad_proof' | 'root_not_timestamped' | 'wrong_chain';

export type AnchorVerification =
  | {
      valid: true;
      /** When the chain timestamped the root (`EAS.getTimestamp(root)`): the attestation existed by then. */
      existedBy: Date;
      root: string;
      txHash: string;
      blockNumber: number;
    }
  | { valid: false; reason: AnchorFailure; message: string };

/** EAS's address on the OP Stack chains, where it is a predeploy. */
export const EAS_PREDEPLOY = '0x4200000000000000000000000000000000000021';
const PREDEPLOY_CHAINS = new Set([10, 8453, 84532, 11155420]);

/** `getTimestamp(bytes32)`'s selector. */
const GET_TIMESTAMP = '0xd45c4435';
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function failure(reason: AnchorFailure, message: string): AnchorVerification {
  return { valid: false, reason, message };
}

function easAddressFor(record: AnchoredRecord, explicit: string | undefined): string {
  const address = explicit ?? (record.chainId && PREDEPLOY_CHAINS.has(record.chainId) ? EAS_PREDEPLOY : undefined);
  if (!address)
    throw new TypeError(
      `verifyAnchor: pass easAddress (the EAS contract of chain ${record.chainId ?? 'unknown'}; only Base and Optimism have a default)`,
    );
  if (!ADDRESS.test(address)) throw new TypeError(`verifyAnchor: easAddress ${address} is not an address`);
  return address;
}

/** Whether `proof` leads from the leaf `[uid]` to `root` in a standard tree; malformed values prove nothing. */
export function anchorProofHolds(uid: string, anchor: Pick<AttestationAnchor, 'root' | 'proof'>): boolean {
  if (!BYTES32.test(uid) || !BYTES32.test(anchor.root) || !Array.isArray(anchor.proof)) return false;
  if (!anchor.proof.every((node) => typeof node === 'string' && BYTES32.test(node))) return false;
  return StandardMerkleTree.verify(anchor.root, ['bytes32'], [uid], anchor.proof);
}

async function rpc(opts: VerifyAnchorOptions, method: string, params: unknown[]): Promise<string> {
  const doFetch = opts.fetch ?? globalThis.fetch;
  let body: { result?: unknown; error?: { message?: string } };
  try {
    const res = await doFetch(opts.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: opts.signal,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = (await res.json()) as typeof body;
  } catch (error) {
    throw new Error(`verifyAnchor: the chain's RPC did not answer ${method}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (body.error || typeof body.result !== 'string')
    throw new Error(`verifyAnchor: ${method} failed: ${body.error?.message ?? 'no result'}`);
  return body.result;
}

/**
 * Checks an off-chain attestation's anchor without trusting the service: the proof must lead from its uid to the
 * root, and the EAS contract on your RPC's chain must hold a timestamp for that root. `valid: true` means the
 * attestation existed by `existedBy`. Throws when the RPC cannot answer (that is no verdict), or when no EAS
 * address is known for the chain.
 */
export async function verifyAnchor(record: AnchoredRecord, options: VerifyAnchorOptions): Promise<AnchorVerification> {
  const anchor = record.anchor;
  if (!anchor) return failure('not_anchored', 'the service has not anchored this attestation yet');
  if (!anchorProofHolds(record.uid, anchor))
    return failure('bad_proof', `the proof does not lead from uid ${record.uid} to root ${anchor.root}`);
  const eas = easAddressFor(record, options.easAddress);
  const [chainHex, word] = await Promise.all([
    record.chainId === undefined ? Promise.resolve(undefined) : rpc(options, 'eth_chainId', []),
    rpc(options, 'eth_call', [{ to: eas, data: `${GET_TIMESTAMP}${anchor.root.slice(2)}` }, 'latest']),
  ]);
  if (chainHex !== undefined && Number(BigInt(chainHex)) !== record.chainId)
    return failure('wrong_chain', `the RPC serves chain ${BigInt(chainHex)}, the record chain ${record.chainId}`);
  const seconds = word === '0x' ? 0n : BigInt(word);
  if (seconds === 0n)
    return failure('root_not_timestamped', `the EAS contract ${eas} holds no timestamp for root ${anchor.root}`);
  return {
    valid: true,
    existedBy: new Date(Number(seconds) * 1000),
    root: anchor.root,
    txHash: anchor.txHash,
    blockNumber: anchor.blockNumber,
  };
}
