import type { Hex, PublicClient } from 'viem';
import { EAS_ARTIFACT } from '../chain/eas-artifacts.ts';
import { enqueueRelay } from '../chain/relay.task.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { openSession, tryAdvisoryLock, advisoryUnlock } from '../db/advisory-lock-sessions.ts';
import type { Pool } from '../db/sql.ts';
import { describeError } from '../errors.ts';
import { meter } from '../system/meter.ts';
import type { Logger } from '../log.ts';
import { confirmAnchor } from './confirm.ts';
import {
  anchorWaiting,
  assignLeaves,
  deleteAnchor,
  failedAnchors,
  insertAnchor,
  markAssigned,
  offerAgain,
  releaseLeaves,
  unanchored,
  unassignedAnchors,
  type AnchorRow,
  type Timestamped,
} from './store.ts';
import { buildAnchorTree } from './tree.ts';

/**
 * The most attestations one anchor holds: its tree (64 bytes a leaf) and proofs stay a few tens of MB. More waiting
 * (a backlog after an outage) go into the next anchors, one a run.
 */
const MAX_LEAVES_PER_ANCHOR = 250_000;
/**
 * Attestations given their anchor and proof per transaction: each holds its rows locked for well under a second (a
 * revocation of one of them waits that long at most), where one transaction for 100,000 held them for seconds.
 */
const ASSIGN_CHUNK = 5_000;
/** The PostgreSQL advisory lock that makes one anchor run at a time, across every worker (and any other caller). */
const RUN_LOCK = 0x7e1a7e7;
/** How far back a root timestamped by someone else's transaction is looked for (blocks). */
const LOOKBACK_BLOCKS = 50_000n;

interface AnchorerDeps {
  db: Db;
  /** The pool under `db`: a run holds its lock on a connection of its own. */
  pool: Pool;
  clock: Clock;
  log: Logger;
  chain: { publicClient: PublicClient; eas: Hex };
  maxLeaves?: number;
}

export type Anchorer = ReturnType<typeof createAnchorer>;

/** What a run did: nothing (another run holds the lock), or its work, with the anchor it made if any. */
type AnchorRun = { busy: true } | { busy: false; anchor: AnchorRow | undefined };

/** One anchor run's work (the anchor task runs it once at a time, every ANCHOR_INTERVAL). */
export function createAnchorer(deps: AnchorerDeps) {
  const { db, pool, clock, log, chain } = deps;

  /**
   * Anchors whose transaction failed go back to the relayer; one whose root the chain holds already (another
   * transaction timestamped it first: EAS then refuses ours) is confirmed with that transaction instead.
   */
  async function reviewFailed(): Promise<void> {
    for (const anchor of await failedAnchors(db)) {
      const onChain = await timestampedOnChain(chain, anchor.root).catch((error: unknown) => {
        log.warn({ root: anchor.root, error: describeError(error) }, 'could not ask the chain about a root');
        return undefined;
      });
      if (onChain) {
        await inTransaction(db, (tx) => confirmAnchor(tx, anchor, onChain, new Date(clock.now())));
        log.warn({ root: anchor.root, txHash: onChain.txHash }, 'root timestamped by another transaction: taken');
      } else await offerAgain(db, { anchorId: anchor.id });
    }
  }

  /**
   * Gives back what a crash left unassigned, offers failed anchors again, then, unless an anchor still waits to be
   * sent (the chain is down: what comes meanwhile waits for the next anchor rather than making one each run),
   * anchors what no anchor holds yet.
   */
  async function runLocked(signal?: AbortSignal): Promise<AnchorRow | undefined> {
    for (const anchorId of await unassignedAnchors(db)) await abandon(db, anchorId);
    await reviewFailed();
    if (await anchorWaiting(db)) {
      await inTransaction(db, (tx) => enqueueRelay(tx));
      return undefined;
    }
    return makeAnchor(deps, signal);
  }

  return {
    /**
     * One run, under an advisory lock (PostgreSQL drops it the moment a crashed holder's connection dies): two at once
     * could give back rows of an anchor the other is about to mark assigned. A run that finds it taken does nothing.
     */
    async run(signal?: AbortSignal): Promise<AnchorRun> {
      const session = await openSession(pool);
      // a connection that cannot say it unlocked is not given out again (closing it drops the lock)
      let broken: Error | undefined;
      try {
        if (!(await tryAdvisoryLock(session.db, RUN_LOCK))) return { busy: true };
        try {
          return { busy: false, anchor: await runLocked(signal) };
        } finally {
          await advisoryUnlock(session.db, RUN_LOCK).catch((error: Error) => (broken = error));
        }
      } finally {
        session.release(broken);
      }
    },
  };
}

/** Where the chain timestamped `root`, if anyone's transaction did (undefined: not timestamped, or not found). */
async function timestampedOnChain(chain: AnchorerDeps['chain'], root: Hex): Promise<Timestamped | undefined> {
  const { publicClient, eas } = chain;
  const seconds = await publicClient.readContract({
    address: eas,
    abi: EAS_ARTIFACT.abi,
    functionName: 'getTimestamp',
    args: [root],
  });
  if (seconds === 0n) return undefined;
  const latest = await publicClient.getBlockNumber();
  const [event] = await publicClient.getContractEvents({
    address: eas,
    abi: EAS_ARTIFACT.abi,
    eventName: 'Timestamped',
    args: { data: root },
    fromBlock: latest > LOOKBACK_BLOCKS ? latest - LOOKBACK_BLOCKS : 0n,
    toBlock: latest,
  });
  if (!event?.transactionHash || event.blockNumber === null) return undefined;
  return {
    txHash: event.transactionHash,
    blockNumber: event.blockNumber,
    timestamp: new Date(Number(seconds) * 1000),
  };
}

/** Gives an unassigned anchor's attestations back and deletes it (its tree is made again from what waits). */
async function abandon(db: Db, anchorId: string): Promise<void> {
  while ((await releaseLeaves(db, anchorId, ASSIGN_CHUNK)) > 0);
  await deleteAnchor(db, anchorId);
}

/**
 * A new anchor of the attestations no anchor holds yet, each given it with its proof, then left to the relayer;
 * undefined when none wait. Stopped (a worker shutting down): left unassigned, for the next run to give back.
 */
async function makeAnchor(deps: AnchorerDeps, signal?: AbortSignal): Promise<AnchorRow | undefined> {
  const { db, clock, log } = deps;
  const maxLeaves = deps.maxLeaves ?? MAX_LEAVES_PER_ANCHOR;
  const started = performance.now();
  const leaves = await unanchored(db, maxLeaves);
  if (leaves.length === 0) return undefined;
  const selected = performance.now();
  const tree = await buildAnchorTree(leaves.map((l) => l.uid));
  const built = performance.now();
  const id = await insertAnchor(db, tree.root, leaves.length, new Date(clock.now()));
  for (let from = 0; from < leaves.length; from += ASSIGN_CHUNK) {
    signal?.throwIfAborted();
    const chunk = leaves.slice(from, from + ASSIGN_CHUNK);
    const proofs = tree.proofsOf(from, from + chunk.length);
    const ids = chunk.map((l) => l.id);
    const taken = await inTransaction(db, (tx) => assignLeaves(tx, id, ids, proofs));
    // another anchor holds some of them: this tree is not theirs to prove (the next run makes another)
    if (taken !== chunk.length) {
      await abandon(db, id);
      throw new Error(`${chunk.length - taken} of the anchor's attestations are in another anchor`);
    }
  }
  await inTransaction(db, async (tx) => {
    if (!(await markAssigned(tx, id, new Date(clock.now())))) throw new Error('the anchor was abandoned meanwhile');
    await enqueueRelay(tx);
  });
  const ms = (from: number, to: number) => Math.round(to - from);
  const timings = {
    selectMs: ms(started, selected),
    treeMs: ms(selected, built),
    assignMs: ms(built, performance.now()),
  };
  log.info({ root: tree.root, attestations: leaves.length, ...timings }, 'anchor made');
  meter().anchorMade();
  return { id, root: tree.root, leafCount: leaves.length };
}
