// Gas per attestation for our schema, next to the `bytes32,string,string` schema measured before choosing, and to the
// two ways the IPTC digital source type could have joined the signed data (a string term, a uint8 code), all on a
// fresh dev chain in the same run: single `attest`, and per item of one `multiAttest` of 100.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  encodePacked,
  http,
  keccak256,
  toHex,
  zeroAddress,
  zeroHash,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { EAS_ARTIFACT, SCHEMA_REGISTRY_ARTIFACT } from '../src/chain/eas-artifacts.ts';
import { startDevChain } from '../src/chain/dev-chain.ts';
import { rpcChain } from '../src/chain/rpc-chain.ts';
import { encodeAttestationData, SCHEMA, SCHEMA_UID } from '../src/chain/schema.ts';

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const BASELINE_SCHEMA = 'bytes32 contentHash,string origin,string contentType';
/** The digital source type in the signed data, as its term or as a code: what docs/decisions.md weighed. */
const SOURCE_TYPE_SCHEMAS = {
  string: 'bytes32 contentHash,bool aiGenerated,string digitalSourceType',
  uint8: 'bytes32 contentHash,bool aiGenerated,uint8 digitalSourceType',
} as const;

type Figure = { schema: string; single: bigint; perItemOf100: bigint };
export interface GasFigures {
  ours: Figure;
  baseline: Figure;
  /** Our schema with the digital source type added: as the IPTC term, and as a uint8 code. */
  sourceType: { string: Figure; uint8: Figure };
}

export async function measureGas(): Promise<GasFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'gas-'));
  const chain = await startDevChain({ dataDir: dir, deployerKey: KEY });
  try {
    const transport = http(chain.rpcUrl);
    const foundry = rpcChain(chain.chainId, chain.rpcUrl);
    const publicClient = createPublicClient({ chain: foundry, transport });
    const wallet = createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(KEY) });
    const send = async (data: Hex, to: Hex) =>
      (
        await publicClient.waitForTransactionReceipt({
          hash: await wallet.sendTransaction({ to, data }),
          pollingInterval: 50,
        })
      ).gasUsed;

    const register = async (schema: string) => {
      await send(
        encodeFunctionData({
          abi: SCHEMA_REGISTRY_ARTIFACT.abi,
          functionName: 'register',
          args: [schema, zeroAddress, true],
        }),
        chain.schemaRegistry,
      );
      return keccak256(encodePacked(['string', 'address', 'bool'], [schema, zeroAddress, true]));
    };
    const baselineUid = await register(BASELINE_SCHEMA);
    const stringUid = await register(SOURCE_TYPE_SCHEMAS.string);
    const uint8Uid = await register(SOURCE_TYPE_SCHEMAS.uint8);
    const hash = (i: number) => keccak256(toHex(`content ${i}`));
    const ours = (i: number) => encodeAttestationData(hash(i), i % 2 ? 'ai' : 'human');
    const theirs = (i: number) =>
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'string' }, { type: 'string' }],
        [hash(i), i % 2 ? 'ai' : 'human', 'text/plain'],
      );
    const withTerm = (i: number) =>
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'bool' }, { type: 'string' }],
        [hash(i), i % 2 === 1, i % 2 ? 'trainedAlgorithmicMedia' : 'digitalCreation'],
      );
    const withCode = (i: number) =>
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'bool' }, { type: 'uint8' }],
        [hash(i), i % 2 === 1, 1 + (i % 2)],
      );
    const request = (data: Hex) => ({
      recipient: zeroAddress,
      expirationTime: 0n,
      revocable: true,
      refUID: zeroHash,
      data,
      value: 0n,
    });

    const measure = async (schema: Hex, encode: (i: number) => Hex) => {
      // the first attestation of a schema pays one-time storage costs: measure a later one
      await send(
        encodeFunctionData({
          abi: EAS_ARTIFACT.abi,
          functionName: 'attest',
          args: [{ schema, data: request(encode(1_000)) }],
        }),
        chain.eas,
      );
      const single = await send(
        encodeFunctionData({
          abi: EAS_ARTIFACT.abi,
          functionName: 'attest',
          args: [{ schema, data: request(encode(1)) }],
        }),
        chain.eas,
      );
      const batch = await send(
        encodeFunctionData({
          abi: EAS_ARTIFACT.abi,
          functionName: 'multiAttest',
          args: [[{ schema, data: Array.from({ length: 100 }, (_, i) => request(encode(i + 2))) }]],
        }),
        chain.eas,
      );
      return { single, perItemOf100: batch / 100n };
    };
    return {
      ours: { schema: SCHEMA, ...(await measure(SCHEMA_UID, ours)) },
      baseline: { schema: BASELINE_SCHEMA, ...(await measure(baselineUid, theirs)) },
      sourceType: {
        string: { schema: SOURCE_TYPE_SCHEMAS.string, ...(await measure(stringUid, withTerm)) },
        uint8: { schema: SOURCE_TYPE_SCHEMAS.uint8, ...(await measure(uint8Uid, withCode)) },
      },
    };
  } finally {
    await chain.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await measureGas());
