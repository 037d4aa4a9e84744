import { createPublicClient, http, parseEventLogs, type Hex, type PublicClient } from 'viem';

/*
 * What this app trusts, none of it from our database: the service's schema (the protocol's SCHEMA_UID, derived from
 * its text as SchemaRegistry does), and, from configuration, the chain, its EAS contract and the service's attester.
 */

/** The parts of the EAS ABI the verdict reads (eas-contracts 1.x). */
const EAS_ABI = [
  {
    type: 'function',
    name: 'getAttestation',
    stateMutability: 'view',
    inputs: [{ name: 'uid', type: 'bytes32' }],
    outputs: [
      {
        name: '',
        type: 'tuple',
        components: [
          { name: 'uid', type: 'bytes32' },
          { name: 'schema', type: 'bytes32' },
          { name: 'time', type: 'uint64' },
          { name: 'expirationTime', type: 'uint64' },
          { name: 'revocationTime', type: 'uint64' },
          { name: 'refUID', type: 'bytes32' },
          { name: 'recipient', type: 'address' },
          { name: 'attester', type: 'address' },
          { name: 'revocable', type: 'bool' },
          { name: 'data', type: 'bytes' },
        ],
      },
    ],
  },
  {
    type: 'function',
    name: 'getRevokeOffchain',
    stateMutability: 'view',
    inputs: [
      { name: 'revoker', type: 'address' },
      { name: 'data', type: 'bytes32' },
    ],
    outputs: [{ name: '', type: 'uint64' }],
  },
  {
    type: 'function',
    name: 'getTimestamp',
    stateMutability: 'view',
    inputs: [{ name: 'data', type: 'bytes32' }],
    outputs: [{ name: '', type: 'uint64' }],
  },
  {
    type: 'event',
    name: 'Timestamped',
    inputs: [
      { name: 'data', type: 'bytes32', indexed: true },
      { name: 'timestamp', type: 'uint64', indexed: true },
    ],
  },
  { type: 'function', name: 'version', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'string' }] },
  {
    type: 'event',
    name: 'Attested',
    inputs: [
      { name: 'recipient', type: 'address', indexed: true },
      { name: 'attester', type: 'address', indexed: true },
      { name: 'uid', type: 'bytes32', indexed: false },
      { name: 'schemaUID', type: 'bytes32', indexed: true },
    ],
  },
] as const;

export interface TrustAnchors {
  chainId: number;
  eas: Hex;
  attester: Hex;
}

export interface OnchainAttestation {
  uid: Hex;
  schema: Hex;
  time: bigint;
  expirationTime: bigint;
  revocationTime: bigint;
  refUID: Hex;
  recipient: Hex;
  attester: Hex;
  revocable: boolean;
  data: Hex;
}

export interface AttestedLog {
  address: Hex;
  uid: Hex;
  attester: Hex;
  schemaUID: Hex;
}

/** An EAS `Timestamped` log: `data` was timestamped at `timestamp` (seconds). */
export interface TimestampedLog {
  address: Hex;
  data: Hex;
  timestamp: bigint;
}

/** The chain reads a verdict needs, over JSON-RPC. */
export interface EasReader {
  getAttestation(uid: Hex): Promise<OnchainAttestation>;
  getRevokeOffchain(revoker: Hex, uid: Hex): Promise<bigint>;
  /** The EIP-712 domain version of off-chain attestations (EAS `version()`); read once. */
  version(): Promise<string>;
  /** The block and the EAS `Attested` logs of a transaction; undefined when the chain has no such transaction. */
  attestedIn(txHash: Hex): Promise<{ blockNumber: bigint; logs: AttestedLog[] } | undefined>;
  /** When EAS timestamped these 32 bytes (`getTimestamp`, seconds); 0 when it never did. */
  getTimestamp(data: Hex): Promise<bigint>;
  /** The block and the EAS `Timestamped` logs of a transaction; undefined when the chain has no such transaction. */
  timestampedIn(txHash: Hex): Promise<{ blockNumber: bigint; logs: TimestampedLog[] } | undefined>;
}

/** Reads EAS through viem over the given RPC URL (short timeout: a page waits on it). */
export function createEasReader(rpcUrl: string, anchors: TrustAnchors): EasReader {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: 5_000, retryCount: 1 }) }) as PublicClient;
  let version: Promise<string> | undefined;
  const receiptOf = (hash: Hex) =>
    client.getTransactionReceipt({ hash }).catch((error: unknown) => {
      if (error instanceof Error && error.name === 'TransactionReceiptNotFoundError') return undefined;
      throw error;
    });
  return {
    getAttestation: (uid) =>
      client.readContract({
        address: anchors.eas,
        abi: EAS_ABI,
        functionName: 'getAttestation',
        args: [uid],
      }) as Promise<OnchainAttestation>,
    getRevokeOffchain: (revoker, uid) =>
      client.readContract({
        address: anchors.eas,
        abi: EAS_ABI,
        functionName: 'getRevokeOffchain',
        args: [revoker, uid],
      }),
    version() {
      version ??= client
        .readContract({ address: anchors.eas, abi: EAS_ABI, functionName: 'version' })
        .catch((error: unknown) => {
          version = undefined; // a failed read is retried by the next verdict
          throw error;
        });
      return version;
    },
    async attestedIn(txHash) {
      const receipt = await receiptOf(txHash);
      if (!receipt) return undefined;
      const logs = parseEventLogs({ abi: EAS_ABI, eventName: 'Attested', logs: receipt.logs }).map((log) => ({
        address: log.address,
        uid: log.args.uid,
        attester: log.args.attester,
        schemaUID: log.args.schemaUID,
      }));
      return { blockNumber: receipt.blockNumber, logs };
    },
    getTimestamp: (data) =>
      client.readContract({ address: anchors.eas, abi: EAS_ABI, functionName: 'getTimestamp', args: [data] }),
    async timestampedIn(txHash) {
      const receipt = await receiptOf(txHash);
      if (!receipt) return undefined;
      const logs = parseEventLogs({ abi: EAS_ABI, eventName: 'Timestamped', logs: receipt.logs }).map((log) => ({
        address: log.address,
        data: log.args.data,
        timestamp: log.args.timestamp,
      }));
      return { blockNumber: receipt.blockNumber, logs };
    },
  };
}
