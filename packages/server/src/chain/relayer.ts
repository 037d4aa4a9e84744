import { setTimeout as sleep } from 'node:timers/promises';
import { isAddressEqual, parseTransaction, recoverTransactionAddress, type Hex } from 'viem';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { recordFailed, unfinished, type JournalEntry, type RelayKind } from './journal-store.ts';
import { settleForeign, type ForeignFlight } from './foreign.ts';
import { createPipeline, type Flight, type PipelineOptions } from './pipeline.ts';
import { createReorgGuard } from './reorg.ts';
import type { RoundWork } from './round.ts';
import type { Sender } from './sender.ts';
import type { Watch } from './watch.ts';

export type Relayer = ReturnType<typeof createRelayer>;

/** How often new work is looked for while an earlier key's transactions are still watched. */
const FOREIGN_POLL_MS = 200;

/** What the relayer of this process is doing now (zeros while another process holds the signer). */
interface RelayerStats {
  inFlight: number;
  /** Items those transactions carry (those picked up from the journal after a restart are not counted). */
  inFlightItems: number;
  /** How long the oldest of them has waited since it was first signed (ms), or null. */
  oldestInFlightMs: number | null;
  /** The max fee per gas of the fees last read from the node (wei), or null before any. */
  lastMaxFeePerGasWei: bigint | null;
  /** The gas one transaction may use now, or null before the first block was read. */
  gasTarget: bigint | null;
}

interface RelayerDeps {
  db: Db;
  sender: Sender;
  watch: Watch;
  /** A watch over another address's transactions: those an earlier relayer key signed (chain/foreign.ts). */
  watchOf: (address: Hex) => Watch;
  clock: Clock;
  log: Logger;
  works: RoundWork[];
}

/**
 * The relay job's work: pick up what the journal left open (a crash, a stuck transaction), then keep up to
 * `maxInFlight` transactions in flight until nothing is pending (chain/pipeline.ts). Runs under the signer's lock
 * (chain/relay.task.ts), so one relayer at a time signs. Works of one kind share their finish and requeue (the
 * journal records the kind, not the work).
 */
export function createRelayer(deps: RelayerDeps, opts: PipelineOptions) {
  const { db, works } = deps;
  const workOfKind = (kind: RelayKind) => workOf(works, kind);
  const guard = createReorgGuard({ ...deps, workOf: workOfKind });
  // an earlier key's transaction taken back by a reorg is not the pipeline's: the next run watches it as foreign
  const ours = (e: JournalEntry) => !e.signer || isAddressEqual(e.signer, deps.sender.address);
  const pipeline = createPipeline(
    {
      ...deps,
      reorged: async () =>
        (await guard.revive())
          .filter(ours)
          .map((e) => ({ ...flightOf(works, { ...e, txHash: e.txHash! }), work: e.filler ?? workOfKind(e.kind) })),
    },
    opts,
  );

  return {
    /**
     * Reconciles the journal: an entry never signed puts its items back in the queue; a signed one is in flight
     * again (its bytes resent, then mined, bumped or found replaced like any other), unless another relayer address
     * signed it (a key rotation): that one is watched to its end beside, never re-signed. Then sends until done.
     */
    async run(signal?: AbortSignal): Promise<void> {
      const { adopted, foreign } = await reconcileJournal(deps);
      await pipeline.adopt(adopted);
      await sendBesideForeign(deps, foreign, (stop) => pipeline.run(stop), signal);
    },

    /** Whether anything waits: a journal entry left open, or items of any work (looked at, not claimed). */
    hasWork: (): Promise<boolean> => hasWork(db, works),

    /** Whether transactions it reported mined are still watched for a reorg (chain/reorg.ts). */
    watching: (): Promise<boolean> => guard.watching(),

    stats(): RelayerStats {
      const flights = pipeline.flights();
      const oldest = flights.reduce((min, f) => Math.min(min, f.sentAt), Infinity);
      return {
        inFlight: flights.length,
        inFlightItems: flights.reduce((sum, f) => sum + f.items, 0),
        oldestInFlightMs: flights.length > 0 ? Date.now() - oldest : null,
        lastMaxFeePerGasWei: deps.sender.lastFees()?.maxFeePerGas ?? null,
        gasTarget: pipeline.gasTarget() ?? null,
      };
    },
  };
}

function workOf(works: RoundWork[], kind: RelayKind): RoundWork {
  const work = works.find((w) => w.kind === kind);
  if (!work) throw new Error(`no relay work of kind ${kind}`);
  return work;
}

/** A journaled transaction as a flight again, from its signed bytes. */
function flightOf(works: RoundWork[], entry: JournalEntry & { nonce: number; rawTx: Hex; txHash: Hex }): Flight {
  const tx = parseTransaction(entry.rawTx);
  const sentAt = entry.sentAt?.getTime() ?? Date.now();
  return {
    journalId: entry.id,
    work: workOf(works, entry.kind),
    to: tx.to!,
    data: tx.data ?? '0x',
    nonce: entry.nonce,
    gas: tx.gas!,
    fees: { maxFeePerGas: tx.maxFeePerGas!, maxPriorityFeePerGas: tx.maxPriorityFeePerGas! },
    hash: entry.txHash,
    raw: entry.rawTx,
    hashes: entry.sentHashes.length > 0 ? [...entry.sentHashes] : [entry.txHash],
    items: 0,
    sentAt,
    since: Date.now(),
    bumps: Math.max(0, entry.attempts - 1),
  };
}

/** The journal's open entries: signed ones as flights (this key's, or an earlier key's), unsigned ones requeued. */
async function reconcileJournal(deps: RelayerDeps): Promise<{ adopted: Flight[]; foreign: ForeignFlight[] }> {
  const { db, clock, works } = deps;
  const adopted: Flight[] = [];
  const foreign: ForeignFlight[] = [];
  for (const entry of await unfinished(db)) {
    if (entry.status === 'sent' && entry.nonce !== null && entry.rawTx && entry.txHash) {
      const flight = flightOf(works, { ...entry, nonce: entry.nonce, rawTx: entry.rawTx, txHash: entry.txHash });
      const signer = entry.signer ?? (await recoverTransactionAddress({ serializedTransaction: entry.rawTx as never }));
      if (isAddressEqual(signer, deps.sender.address)) adopted.push(flight);
      else foreign.push({ ...flight, signer });
      continue;
    }
    await inTransaction(db, async (tx) => {
      await workOf(works, entry.kind).requeue(tx, entry.id);
      await recordFailed(tx, entry.id, 'abandoned before it was signed', new Date(clock.now()));
    });
  }
  return { adopted, foreign };
}

/**
 * Runs the pipeline until done while an earlier key's transactions are out (new work keeps going out with this
 * key); a failing pipeline stops the foreign watch too (the next run takes both up from the journal).
 */
async function sendBesideForeign(
  deps: RelayerDeps,
  foreign: ForeignFlight[],
  runPipeline: (signal?: AbortSignal) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<void> {
  const halt = new AbortController();
  const until = signal ? AbortSignal.any([signal, halt.signal]) : halt.signal;
  let foreignOpen = foreign.length > 0;
  const theirs = settleForeign(deps, foreign, until).finally(() => (foreignOpen = false));
  const ours = (async () => {
    do {
      await runPipeline(signal);
      if (foreignOpen) await sleep(FOREIGN_POLL_MS, undefined, { signal: until }).catch(() => undefined);
    } while (foreignOpen && !until.aborted);
  })().catch((error: unknown) => {
    halt.abort();
    throw error;
  });
  const results = await Promise.allSettled([ours, theirs]);
  for (const result of results) if (result.status === 'rejected') throw result.reason;
}

/** Whether a journal entry is open or any work has items (looked at, not claimed). */
async function hasWork(db: Db, works: RoundWork[]): Promise<boolean> {
  if ((await unfinished(db)).length > 0) return true;
  for (const work of works) {
    let found = false;
    await inTransaction(db, (tx) =>
      work.claim(tx, undefined, async () => {
        found = true;
        return undefined; // declined: nothing is tied to a transaction
      }),
    );
    if (found) return true;
  }
  return false;
}
