// The relayer pipeline's steps, each reached on its own (chain/pipeline-launch.ts, chain/pipeline-settle.ts): a real
// sender and watch on an anvil of the test's own, a real journal in PostgreSQL, and works of the test's own making.
import { createPublicClient, http, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Chain } from '../../src/chain/connect.ts';
import type { RelayKind } from '../../src/chain/journal-store.ts';
import type { PipelineDeps } from '../../src/chain/pipeline-state.ts';
import type { RoundWork, SendOutcome } from '../../src/chain/round.ts';
import { createSender } from '../../src/chain/sender.ts';
import { createWatch } from '../../src/chain/watch.ts';
import { systemClock } from '../../src/clock.ts';
import { createDatabase } from '../../src/db/database.ts';
import { createPool, type Pool } from '../../src/db/sql.ts';
import { createLogger } from '../../src/log.ts';
import { startPrivateChain, type PrivateChain } from '../support/anvil.ts';
import { createTestDatabase } from '../support/database.ts';
import { fundedKey } from '../support/service.ts';
import { pgSql, type Sql } from '../support/sql.ts';

export interface PipelineBench {
  chain: PrivateChain;
  client: PublicClient;
  pool: Pool;
  sql: Sql;
  deps: PipelineDeps;
  address: Hex;
  close(): Promise<void>;
}

/** A private anvil with a funded relayer key, a migrated database, and the pipeline's real dependencies over them. */
export async function startPipelineBench(confirmations = 1): Promise<PipelineBench> {
  const chain = await startPrivateChain();
  const pool = createPool(await createTestDatabase(), 4);
  const db = createDatabase(pool);
  const account = privateKeyToAccount((await fundedKey(chain.rpcUrl)) as Hex);
  const client = createPublicClient({ transport: http(chain.rpcUrl) }) as PublicClient;
  const chainId = Number(await chain.rpc('eth_chainId'));
  const log = createLogger('silent');
  const sender = createSender(
    { publicClient: client, account, chainId } as unknown as Chain,
    db,
    systemClock,
    { maxFeeCapWei: 500n * 10n ** 9n },
    log,
  );
  const watch = createWatch(client, account.address, confirmations);
  return {
    chain,
    client,
    pool,
    sql: pgSql(pool),
    deps: { db, sender, watch, clock: systemClock, log, works: [] },
    address: account.address,
    async close() {
      await pool.end();
      await chain.close();
    },
  };
}

/** A work of the test's making: `waiting` items, one per transaction, each estimated at `estimate` gas. */
export interface TestWork extends RoundWork {
  waiting: number;
  /** The gas budget each claim was given. */
  budgets: Array<bigint | undefined>;
  /** Whether `open` took each transaction offered (false: it was told to wait). */
  opened: boolean[];
  finished: Array<{ journalId: string; outcome: SendOutcome }>;
  failed: Array<{ journalId: string; reason: string }>;
  notSent: string[];
}

export function testWork(
  kind: RelayKind,
  to: Hex,
  opts: { waiting?: number; data?: Hex; estimate?: bigint; onFinish?: (id: string, o: SendOutcome) => Promise<void> },
): TestWork {
  const work: TestWork = {
    kind,
    to,
    waiting: opts.waiting ?? 1,
    budgets: [],
    opened: [],
    finished: [],
    failed: [],
    notSent: [],
    async claim(_tx, gasBudget, open) {
      work.budgets.push(gasBudget);
      if (work.waiting === 0) return undefined;
      const journalId = await open(opts.estimate ?? 21_000n);
      work.opened.push(journalId !== undefined);
      if (journalId === undefined) return undefined;
      work.waiting--;
      return { journalId, count: 1 };
    },
    calldata: async () => opts.data ?? '0x',
    async finish(journalId, outcome) {
      work.finished.push({ journalId, outcome });
      await opts.onFinish?.(journalId, outcome);
    },
    async fail(_tx, journalId, reason) {
      work.failed.push({ journalId, reason });
    },
    requeue: async () => undefined,
    revive: async () => undefined,
    onNotSent: (journalId) => void work.notSent.push(journalId),
  };
  return work;
}

/** An address that is no contract: a call to it costs 21,000 gas and succeeds. */
export const NOBODY: Hex = '0x00000000000000000000000000000000000a11ce';
