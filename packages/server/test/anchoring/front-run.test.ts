import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { createPublicClient, createWalletClient, http, parseAbi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleAnchor } from '../../src/anchoring/schedule-store.ts';
import { until } from '../support/anvil.ts';
import { call, fundedKey, startTestService, type TestService } from '../support/service.ts';

const EAS_ABI = parseAbi(['function timestamp(bytes32 data) returns (uint64)']);

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ env: { ANCHOR_INTERVAL: '1h' } });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

const journal = () =>
  svc.db.selectFrom('relayTransactions').select('status').where('kind', '=', 'anchor').orderBy('id').execute();

const nextRunIsScheduled = async () =>
  // raw SQL: graphile-worker's own table, which the typed database does not declare
  (
    await svc.sql.query(
      `SELECT 1 FROM graphile_worker.jobs
       WHERE task_identifier = 'anchor' AND locked_at IS NULL AND run_at > now() + interval '30 minutes'`,
    )
  ).length > 0;

describe('a root that someone else timestamped first', () => {
  it('is taken from the chain: EAS refuses our transaction, and the records carry theirs', async () => {
    const { key } = await svc.createKey('pro');
    const uids: Hex[] = [];
    for (let i = 0; i < 3; i++) {
      const body = {
        type: 'human',
        content: `front-run ${i} ${Math.random()}`,
        contentType: 'text/plain',
        mode: 'offchain',
      };
      uids.push((await call(svc.url, 'POST', '/v1/attestations', { key, body })).body.uid);
    }
    // the tree of a set does not depend on its order: the root the next anchor will timestamp
    const root = StandardMerkleTree.of(
      uids.map((uid) => [uid]),
      ['bytes32'],
    ).root as Hex;
    const transport = http(svc.chain.rpcUrl);
    const other = privateKeyToAccount((await fundedKey(svc.chain.rpcUrl)) as Hex);
    const wallet = createWalletClient({ chain: { ...foundry, id: svc.chain.chainId }, transport, account: other });
    const theirs = await wallet.writeContract({
      address: svc.chain.eas as Hex,
      abi: EAS_ABI,
      functionName: 'timestamp',
      args: [root],
    });
    await createPublicClient({ transport }).waitForTransactionReceipt({ hash: theirs, pollingInterval: 50 });

    await scheduleAnchor(svc.infrastructure.db, 0);
    await until(async () => ((await journal()).some((e) => e.status === 'failed') ? true : undefined), 30_000);
    expect((await call(svc.url, 'GET', `/v1/attestations/${uids[0]}`)).body.anchor).toBeNull();

    // the failed run ends by scheduling the next an interval away; ours replaces that one (asked earlier, the
    // run's own scheduling would replace ours and push it an hour out)
    await until(async () => ((await nextRunIsScheduled()) ? true : undefined), 30_000);
    await scheduleAnchor(svc.infrastructure.db, 0); // the next run asks the chain before offering the anchor again
    const read = async (uid: string) => (await call(svc.url, 'GET', `/v1/attestations/${uid}`)).body.anchor;
    await until(async () => ((await read(uids[0]!)) ? true : undefined), 30_000);
    for (const uid of uids) {
      const anchor = await read(uid);
      expect(anchor).toMatchObject({ root, txHash: theirs });
      expect(StandardMerkleTree.verify(root, ['bytes32'], [uid], anchor.proof)).toBe(true);
    }
    expect((await journal()).every((e) => e.status === 'failed')).toBe(true);
  }, 90_000);
});
