// Gas per attestation for our schema, next to the `bytes32,string,string` schema measured before choosing, and to the
// two ways the IPTC digital source type could have joined the signed data (a string term, a uint8 code), all on a
// fresh dev chain in the same run: single `attest`, and per item of one `multiAttest` of 100. Then the two ways an AI
// claim's model and prompt hash could go on chain: a schema version with both appended, and a second "AI details"
// attestation per claim that names the claim by refUID, both groups in one `multiAttest`.
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
import { encodeAttestationData, SCHEMA, SCHEMA_UID } from '@attestation-service/protocol';

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const BASELINE_SCHEMA = 'bytes32 contentHash,string origin,string contentType';
/** The digital source type in the signed data, as its term or as a code: what docs/decisions.md weighed. */
const SOURCE_TYPE_SCHEMAS = {
  string: 'bytes32 contentHash,bool aiGenerated,string digitalSourceType',
  uint8: 'bytes32 contentHash,bool aiGenerated,uint8 digitalSourceType',
} as const;
/** The AI details as a schema version (appended to ours), and as their own schema referencing the claim. */
const AI_SCHEMAS = {
  version: 'bytes32 contentHash,bool aiGenerated,string model,bytes32 promptHash',
  details: 'string model,bytes32 promptHash',
} as const;
// a typical short identifier (what `ai.model` holds) and a SHA-256
const MODEL = 'gpt-4o-2024-08-06';
const PROMPT_HASH = keccak256(toHex('prompt'));

type Figure = { schema: string; single: bigint; perItemOf100: bigint };
export interface GasFigures {
  ours: Figure;
  baseline: Figure;
  /** Our schema with the digital source type added: as the IPTC term, and as a uint8 code. */
  sourceType: { string: Figure; uint8: Figure };
  /** AI claims only: ours without details, with them as a schema version, and as a claim plus an AI-details one. */
  aiDetails: { plain: Figure; version: Figure; refUid: Figure };
}

export async function measureGas(): Promise<GasFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'gas-'));
  const chain = await startDevChain({ dataDir: dir, deployerKey: KEY });
  try {
    const transport = http(chain.rpcUrl);
    const foundry = rpcChain(chain.chainId, chain.rpcUrl);
    const publicClient = createPublicClient({ chain: foundry, transport });
    const wallet = createWalletClient({ chain: foundry, transport, account: privateKeyToAccount(KEY) });
    const send = async (data: Hex, to: Hex, gas?: bigint) => {
      const receipt = await publicClient.waitForTransactionReceipt({
        hash: await wallet.sendTransaction({ to, data, gas }),
        pollingInterval: 50,
      });
      if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} reverted`);
      return receipt.gasUsed;
    };

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
    const versionUid = await register(AI_SCHEMAS.version);
    const detailsUid = await register(AI_SCHEMAS.details);
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
    const withModel = (i: number) =>
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'bool' }, { type: 'string' }, { type: 'bytes32' }],
        [hash(i), true, MODEL, PROMPT_HASH],
      );
    const aiClaim = (i: number) => encodeAttestationData(hash(i), 'ai');
    const details = encodeAbiParameters([{ type: 'string' }, { type: 'bytes32' }], [MODEL, PROMPT_HASH]);
    const request = (data: Hex, refUID: Hex = zeroHash) => ({
      recipient: zeroAddress,
      expirationTime: 0n,
      revocable: true,
      refUID,
      data,
      value: 0n,
    });
    // EAS's uid hashes the block's timestamp, so a details item can name its claim in the same transaction only if
    // the time is known: anvil fixes the next block's, which a relayer on a live chain cannot.
    const easUid = (schema: Hex, data: Hex, time: bigint) =>
      keccak256(
        encodePacked(
          ['bytes32', 'address', 'address', 'uint64', 'uint64', 'bool', 'bytes32', 'bytes', 'uint32'],
          [schema, zeroAddress, wallet.account.address, time, 0n, true, zeroHash, data, 0],
        ),
      );
    const measurePairs = async () => {
      // 100 pairs outgrow anvil's default 30M block; the gas is given since an estimate would run at another time
      await publicClient.request({ method: 'evm_setBlockGasLimit' as never, params: [toHex(60_000_000)] as never });
      const pairs = async (from: number, count: number) => {
        const time = BigInt((await publicClient.getBlock()).timestamp) + 10n;
        await publicClient.request({ method: 'evm_setNextBlockTimestamp' as never, params: [Number(time)] as never });
        const claims = Array.from({ length: count }, (_, i) => aiClaim(from + i));
        return send(
          encodeFunctionData({
            abi: EAS_ARTIFACT.abi,
            functionName: 'multiAttest',
            args: [
              [
                { schema: SCHEMA_UID, data: claims.map((d) => request(d)) },
                { schema: detailsUid, data: claims.map((d) => request(details, easUid(SCHEMA_UID, d, time))) },
              ],
            ],
          }),
          chain.eas,
          BigInt(count) * 500_000n + 100_000n,
        );
      };
      await pairs(5_000, 1);
      const single = await pairs(6_000, 1);
      const batch = await pairs(7_000, 100);
      return { single, perItemOf100: batch / 100n };
    };

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
      aiDetails: {
        plain: { schema: SCHEMA, ...(await measure(SCHEMA_UID, aiClaim)) },
        version: { schema: AI_SCHEMAS.version, ...(await measure(versionUid, withModel)) },
        refUid: { schema: `${SCHEMA} + ${AI_SCHEMAS.details}`, ...(await measurePairs()) },
      },
    };
  } finally {
    await chain.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await measureGas());
