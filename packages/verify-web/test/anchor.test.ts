import { randomBytes } from 'node:crypto';
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import type { Attestation, AttestationAnchor } from '@attestation-service/client';
import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { encodeAttestationData, SCHEMA_UID } from '@attestation-service/protocol';
import { createOffchainSigner, fundedKey } from '@attestation-service/server/testing';
import { badgeJson } from '../src/badge/json.ts';
import { attestationPage } from '../src/html/attestation-page.ts';
import { anchorChecks } from '../src/verdict/anchor.ts';
import { createEasReader, type EasReader } from '../src/verdict/eas.ts';
import { createVerifier } from '../src/verdict/verify.ts';
import type { Verdict } from '../src/verdict/types.ts';

const chain = inject('chain');
const EAS = chain.eas as Hex;
const KEY = `0x${randomBytes(32).toString('hex')}` as Hex;
const anchors = { chainId: foundry.id, eas: EAS, attester: privateKeyToAccount(KEY).address };
const reader = createEasReader(chain.rpcUrl, anchors);
const publicClient = createPublicClient({ chain: foundry, transport: http(chain.rpcUrl) });
let wallet: ReturnType<typeof createWalletClient>;

beforeAll(async () => {
  const account = privateKeyToAccount((await fundedKey(chain.rpcUrl)) as Hex);
  wallet = createWalletClient({ account, chain: foundry, transport: http(chain.rpcUrl) });
});

/** EAS.timestamp(root) on the run's anvil, as the service's anchoring does; the transaction and its block. */
async function timestampOnChain(root: Hex): Promise<{ txHash: Hex; blockNumber: number; time: bigint }> {
  const abi = [
    {
      type: 'function',
      name: 'timestamp',
      stateMutability: 'nonpayable',
      inputs: [{ name: 'data', type: 'bytes32' }],
      outputs: [{ name: '', type: 'uint64' }],
    },
  ] as const;
  const txHash = await wallet.writeContract({
    address: EAS,
    abi,
    functionName: 'timestamp',
    args: [root],
    account: wallet.account!,
    chain: foundry,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash });
  const block = await publicClient.getBlock({ blockNumber: receipt.blockNumber });
  return { txHash, blockNumber: Number(receipt.blockNumber), time: block.timestamp };
}

/** A signed off-chain record as the service makes one (the domain of this chain's EAS), with `anchor` set. */
async function offchainRecord(anchor: AttestationAnchor | null = null): Promise<Attestation> {
  const signer = createOffchainSigner({
    privateKey: KEY,
    domain: { name: 'EAS Attestation', version: await reader.version(), chainId: foundry.id, verifyingContract: EAS },
    schemaUid: SCHEMA_UID,
  });
  const contentHash = `0x${randomBytes(32).toString('hex')}`;
  const pkg = signer.sign(encodeAttestationData(contentHash as Hex, 'human'), Math.floor(Date.now() / 1000));
  return {
    uid: pkg.sig.uid,
    type: 'human',
    digitalSourceType: 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCreation',
    mode: 'offchain',
    contentHash,
    contentType: 'text/plain',
    chainId: foundry.id,
    schemaUid: SCHEMA_UID,
    attester: anchors.attester,
    claimant: { kind: 'service', address: anchors.attester, accountName: null, domain: null },
    txHash: null,
    blockNumber: null,
    createdAt: new Date().toISOString(),
    revoked: false,
    revokedAt: null,
    revocationTxHash: null,
    refUid: null,
    ai: null,
    offchainUid: null,
    onchainUid: null,
    verifyUrl: 'x',
    offchain: pkg,
    anchor,
  };
}

/** A record anchored in a tree of itself and `others` random uids; the root timestamped on chain unless told not to. */
async function anchoredRecord(opts: { others?: number; timestamp?: boolean } = {}) {
  const record = await offchainRecord();
  const uids = [
    [record.uid],
    ...Array.from({ length: opts.others ?? 4 }, () => [`0x${randomBytes(32).toString('hex')}`]),
  ];
  const tree = StandardMerkleTree.of(uids, ['bytes32']);
  const root = tree.root as Hex;
  const mined =
    opts.timestamp === false
      ? { txHash: `0x${'ab'.repeat(32)}` as Hex, blockNumber: 1, time: 0n }
      : await timestampOnChain(root);
  const anchor: AttestationAnchor = {
    root,
    proof: tree.getProof(0),
    txHash: mined.txHash,
    blockNumber: mined.blockNumber,
    timestamp: new Date(Number(mined.time) * 1000).toISOString(),
  };
  return { record: Object.assign(record, { anchor }), anchor, mined };
}

/** The reader, counting its anchor reads. */
function counting(base: EasReader) {
  const reads = { count: 0 };
  const eas: EasReader = {
    ...base,
    getTimestamp: (root) => (reads.count++, base.getTimestamp(root)),
    timestampedIn: (tx) => (reads.count++, base.timestampedIn(tx)),
  };
  return { eas, reads };
}

describe('the anchor of an off-chain attestation, judged on a real chain', () => {
  it('says it existed by the block time at which EAS timestamped its root', async () => {
    const { record, anchor, mined } = await anchoredRecord();
    expect(await reader.getTimestamp(anchor.root as Hex)).toBe(mined.time);
    const existedBy = new Date(Number(mined.time) * 1000).toISOString();
    expect(await anchorChecks(record, reader, anchors)).toEqual({
      anchor: { verified: true, existedBy, root: anchor.root, txHash: mined.txHash, blockNumber: mined.blockNumber },
      checks: [{ label: 'Anchor', ok: true, detail: expect.stringContaining(`timestamped at ${existedBy}`) }],
    });
  });

  it('fails a tampered proof, a proof of another uid and a malformed anchor, without reading the chain', async () => {
    const { record, anchor } = await anchoredRecord();
    const { eas, reads } = counting(reader);
    const flipped = anchor.proof[0]!.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    const other = await offchainRecord(anchor);
    for (const [bad, reason] of [
      [{ ...record, anchor: { ...anchor, proof: [flipped, ...anchor.proof.slice(1)] } }, /does not lead from/],
      [other, /does not lead from/],
      [{ ...record, anchor: { ...anchor, proof: 'x' } }, /not a root, a proof and a transaction/],
      [{ ...record, anchor: { ...anchor, root: '0x12' } }, /not a root, a proof and a transaction/],
    ] as const) {
      const judged = await anchorChecks(bad as Attestation, eas, anchors);
      expect(judged.anchor).toEqual({ verified: false, reason: expect.stringMatching(reason) });
      expect(judged.checks.map((c) => [c.label, c.ok])).toEqual([['Anchor', false]]);
    }
    expect(reads.count).toBe(0);
  });

  it('fails a root the chain never timestamped, and a record naming the wrong transaction or block', async () => {
    const untimestamped = await anchoredRecord({ timestamp: false });
    expect((await anchorChecks(untimestamped.record, reader, anchors)).anchor).toEqual({
      verified: false,
      reason: `the EAS contract ${EAS} holds no timestamp for root ${untimestamped.anchor.root}`,
    });
    const { record, anchor } = await anchoredRecord();
    const elsewhere = await anchoredRecord({ others: 1 });
    const wrongTx = { ...record, anchor: { ...anchor, txHash: elsewhere.anchor.txHash } } as Attestation;
    expect((await anchorChecks(wrongTx, reader, anchors)).anchor).toEqual({
      verified: false,
      reason: `transaction ${elsewhere.anchor.txHash} did not timestamp root ${anchor.root} on the EAS contract`,
    });
    const wrongBlock = { ...record, anchor: { ...anchor, blockNumber: anchor.blockNumber + 1 } } as Attestation;
    expect((await anchorChecks(wrongBlock, reader, anchors)).anchor).toMatchObject({
      verified: false,
      reason: expect.stringContaining(`the record says block ${anchor.blockNumber + 1}`),
    });
  });

  it('has nothing to say before anchoring (anchor null or absent) and for on-chain attestations', async () => {
    const { eas, reads } = counting(reader);
    // an API from before anchoring sends no anchor field at all
    const { anchor: _, ...absent } = await offchainRecord();
    for (const record of [
      await offchainRecord(null),
      absent as Attestation,
      { ...(await anchoredRecord()).record, mode: 'onchain' as const },
    ])
      expect(await anchorChecks(record, eas, anchors)).toEqual({ anchor: null, checks: [] });
    expect(reads.count).toBe(0);
  });
});

describe('the verdict, the page and the badge with an anchor', () => {
  const verifierOf = (record: Attestation, eas: EasReader = reader) =>
    createVerifier({ records: { get: async () => record, search: async () => [] }, eas, anchors, cacheTtlMs: 0 });

  it('verified: the page says "existed by" the chain time, the badge carries it with the transaction', async () => {
    const { record, mined } = await anchoredRecord();
    const v = await verifierOf(record).verify(record.uid, 'ip');
    expect([v.state, v.checks.filter((c) => !c.ok)]).toEqual(['verified', []]);
    const existedBy = new Date(Number(mined.time) * 1000).toISOString();
    const page = attestationPage(v, 'https://verify.example');
    expect(page).toContain(`Existed by <time datetime="${existedBy}">`);
    expect(page).toContain(`existed by ${new Date(existedBy).toUTCString().replace('GMT', 'UTC')}`);
    expect(page).toContain(mined.txHash);
    expect(badgeJson(v, 'https://verify.example')?.anchor).toEqual({ verified: true, existedBy, txHash: mined.txHash });
  });

  it('not anchored yet: the page says so, the badge has anchor null, and the verdict still stands', async () => {
    const record = await offchainRecord(null);
    const v = await verifierOf(record).verify(record.uid, 'ip');
    expect(v.state).toBe('verified');
    const page = attestationPage(v, 'https://verify.example');
    expect(page).toContain('Not anchored yet');
    expect(page).not.toMatch(/existed by/i);
    expect(badgeJson(v, 'https://verify.example')?.anchor).toBeNull();
  });

  it('a failing proof: a mismatch that says the anchor does not hold and claims no time', async () => {
    const { record, anchor } = await anchoredRecord();
    const tampered = { ...record, anchor: { ...anchor, proof: anchor.proof.slice(1) } } as Attestation;
    const v = await verifierOf(tampered).verify(record.uid, 'ip');
    expect(v.state).toBe('mismatch');
    expect(v.checks.filter((c) => !c.ok).map((c) => c.label)).toEqual(['Anchor']);
    const page = attestationPage(v, 'https://verify.example');
    expect(page).toContain('The anchor does not hold');
    expect(page).toContain('makes no claim about');
    expect(page).not.toMatch(/existed by/i);
    expect(badgeJson(v, 'https://verify.example')?.anchor).toEqual({
      verified: false,
      reason: expect.stringContaining('does not lead from'),
    });
  });

  it('is unavailable, not a verdict, when the chain does not answer getTimestamp', async () => {
    const { record } = await anchoredRecord();
    const down = { ...reader, getTimestamp: () => Promise.reject(new Error('ECONNREFUSED')) };
    const v: Verdict = await verifierOf(record, down).verify(record.uid, 'ip');
    expect(v.state).toBe('unavailable');
    expect(attestationPage(v, 'https://verify.example')).toContain('Not checked just now');
  });
});
