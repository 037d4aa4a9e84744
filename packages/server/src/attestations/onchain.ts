import type { ChainHealth } from '../chain/health.ts';
import { enqueueRelay } from '../chain/relay.task.ts';
import type { Clock } from '../clock.ts';
import { batched } from '../db/group-commit.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { IdempotencyClaim } from '../idempotency/service.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import { assertOnchainAllowed, reserveOnchainQuota } from '../limits/quota.ts';
import type { RefusalObserver } from '../limits/refusals.ts';
import type { Logger } from '../log.ts';
import { tracer } from '../tracing/tracing.ts';
import type { DelegationService } from './delegated-service.ts';
import type { PreparedAttestation } from './prepare.ts';
import { waitForRelayer } from './relay-wait.ts';
import { insertPending, outcomesOf, type PendingAttestation, type RelayOutcome } from './pending-store.ts';

interface SingleStage {
  auth: AuthenticatedKey;
  item: PreparedAttestation;
  idempotencyKey: string | undefined;
  /** The request's span (tracing on): its row names it, as a transaction of its own would have. */
  traceparent: string | undefined;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function chainUnavailable(reason: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError(
    'CHAIN_UNAVAILABLE',
    `On-chain attestations are unavailable right now (${reason}); nothing was charged. Retry later, or use mode "offchain".`,
    extra,
    { 'Retry-After': '10' },
  );
}

interface OnchainDeps {
  db: Db;
  clock: Clock;
  health: ChainHealth;
  chainId: number;
  schemaUid: string;
  attester: string;
  waitMs?: number;
  /** Told of a quota refusal (the metrics count them). */
  refusals?: RefusalObserver | undefined;
  /** Customer attesters' signed requests (docs/decisions.md, "Customer attesters"). */
  delegations?: DelegationService | undefined;
  log?: Logger | undefined;
}

/**
 * On-chain creation, API side: refuse fast when the chain is down; else reserve quota, store the pending items and
 * ask for a relay run in ONE transaction (the caller's), then wait (bounded) for the relayer's outcome.
 */
export function createOnchainSubmitter(deps: OnchainDeps) {
  const { db, health } = deps;
  const waitMs = deps.waitMs ?? 60_000;
  /**
   * Single creates of the service's own attester, group-committed (stageTogether): those that arrive together
   * reserve their quota, are stored and ask for one relay run in ONE transaction.
   */
  const stageSingles = batched((members: SingleStage[]) => stageTogether(deps, members), {
    maxBatch: 100,
    maxInFlight: 2,
    name: 'on-chain stages',
    log: deps.log,
  });
  const loadOutcomes = batched(
    async (ids: string[]) => {
      const found = await outcomesOf(db, ids);
      return ids.map((id) => found.get(id));
    },
    { maxInFlight: 2 },
  );

  return {
    /** The service's own attester: the relayer's address. */
    attester: deps.attester,

    /** Refuses at once (503, nothing changed) when the chain cannot take writes now. */
    async ensureAvailable(): Promise<void> {
      const status = await health.current();
      if (!status.ok) throw chainUnavailable(status.reason ?? 'the chain does not answer');
    },

    /**
     * One create of the service's own attester (no delegation): its quota reserved, stored pending and a relay run
     * asked for, committed with whatever other creates arrive at the same time. Returns its id.
     */
    async stageOne(
      auth: AuthenticatedKey,
      item: PreparedAttestation,
      opts: { idempotencyKey?: string | undefined },
    ): Promise<string> {
      assertOnchainAllowed(auth);
      const result = await stageSingles({
        auth,
        item,
        idempotencyKey: opts.idempotencyKey,
        traceparent: tracer().traceparent(),
      });
      if (result instanceof AppError) throw result;
      return result;
    },

    /**
     * In the caller's transaction: reserves the items' quota (all or none), stores them pending for the relayer and
     * asks for a relay run. Returns their ids in order.
     */
    stage: (tx: Db, auth: AuthenticatedKey, items: PreparedAttestation[], opts: StageOptions) =>
      stageItems(deps, tx, auth, items, opts),

    /**
     * Hands the request's Idempotency-Key claim to the relayer (it stores the response when the transaction is
     * mined), then waits until the relayer has mined (or given up on) these items; 503 if it failed or takes too long.
     */
    async settle(ids: string[], claim: IdempotencyClaim | undefined): Promise<RelayOutcome[]> {
      claim?.markCompleted();
      return waitForOutcomes(ids, loadOutcomes, waitMs);
    },
  };
}

export type OnchainSubmitter = ReturnType<typeof createOnchainSubmitter>;

type StageOptions = { idempotencyKey?: string | undefined; batchId?: string | undefined };

/** An item's pending row, as the relayer takes it. */
function pendingRow(
  deps: OnchainDeps,
  auth: AuthenticatedKey,
  item: PreparedAttestation,
  now: number,
  quotaPeriod: string,
  opts: StageOptions,
): PendingAttestation {
  return {
    accountId: auth.accountId,
    apiKeyId: auth.keyId,
    type: item.type,
    digitalSourceType: item.digitalSourceType,
    contentHash: item.contentHash,
    contentType: item.contentType,
    chainId: deps.chainId,
    schemaUid: deps.schemaUid,
    attester: deps.attester,
    createdAt: new Date(now),
    quotaPeriod,
    idempotencyKey: opts.idempotencyKey ?? null,
    batchId: opts.batchId ?? null,
    batchIndex: item.batchIndex ?? null,
    refUid: item.refUid ?? null,
    aiModel: item.ai?.model ?? null,
    aiPromptHash: item.ai?.promptHash ?? null,
  };
}

/**
 * A group of single creates in ONE transaction. Each create of an account takes the account's quota row until its
 * transaction ends, so one at a time they were bound by a commit each (docs/decisions.md, "On-chain creates share a
 * commit"). Members run in (account, key) order, so two groups lock rows in one order; a member the quota refuses
 * gets its 429 and leaves nothing behind (the reservation takes back what it added), the others go on.
 */
async function stageTogether(deps: OnchainDeps, members: SingleStage[]): Promise<Array<string | AppError>> {
  const { clock } = deps;
  return inTransaction(
    deps.db,
    async (tx) => {
      const now = clock.now();
      const order = members
        .map((member, index) => ({ member, index }))
        .sort(
          (a, b) =>
            compare(a.member.auth.accountId, b.member.auth.accountId) ||
            compare(a.member.auth.keyId, b.member.auth.keyId),
        );
      const results: Array<string | AppError> = new Array<string | AppError>(members.length);
      const rows: PendingAttestation[] = [];
      const owners: number[] = [];
      for (const { member, index } of order) {
        try {
          const { period } = await reserveOnchainQuota(tx, clock, member.auth, 1, deps.refusals);
          rows.push({
            ...pendingRow(deps, member.auth, member.item, now, period, member),
            traceparent: member.traceparent ?? null,
          });
          owners.push(index);
        } catch (error) {
          if (error instanceof AppError && error.errorCode === 'QUOTA_EXCEEDED') results[index] = error;
          else throw error;
        }
      }
      const ids = await insertPending(tx, rows);
      if (ids.length > 0) await enqueueRelay(tx);
      ids.forEach((id, i) => (results[owners[i]!] = id));
      return results;
    },
    // the relay job it asks for links to one of the requests it serves (chain/relay.task.ts)
    { serving: members.find((member) => member.traceparent)?.traceparent },
  );
}

/** The submitter's stage: delegations checked, quota reserved, the items stored pending and a relay run asked for. */
async function stageItems(
  deps: OnchainDeps,
  tx: Db,
  auth: AuthenticatedKey,
  items: PreparedAttestation[],
  opts: StageOptions,
): Promise<string[]> {
  assertOnchainAllowed(auth);
  const now = deps.clock.now();
  const delegations = (): DelegationService => {
    if (!deps.delegations) throw new Error('customer attesters are not wired in this process');
    return deps.delegations;
  };
  // signatures first (no lock, no charge): a forged request costs nothing
  const delegated = items.some((item) => item.delegation) ? await delegations().verify(items) : [];
  const reservation = await reserveOnchainQuota(tx, deps.clock, auth, items.length, deps.refusals);
  const rows = items.map((item) => pendingRow(deps, auth, item, now, reservation.period, opts));
  const ids =
    delegated.length > 0 ? await delegations().stage(tx, auth, delegated, rows) : await insertPending(tx, rows);
  await enqueueRelay(tx);
  return ids;
}

/** Waits (bounded) until the relayer has mined or given up on every id; 503 if one failed or it takes too long. */
function waitForOutcomes(
  ids: string[],
  loadOutcome: (id: string) => Promise<RelayOutcome | undefined>,
  waitMs: number,
): Promise<RelayOutcome[]> {
  return waitForRelayer<RelayOutcome[]>(
    async () => {
      const outcomes = await Promise.all(ids.map((id) => loadOutcome(id)));
      const failed = outcomes.find((o) => o?.status === 'failed');
      if (failed) return { state: 'failed', reason: failed.failureReason };
      return outcomes.every((o) => o?.status === 'confirmed')
        ? { state: 'done', value: outcomes as RelayOutcome[] }
        : { state: 'pending' };
    },
    {
      waitMs,
      failed: (reason) => chainUnavailable(reason ?? 'the transaction failed'),
      stillPending: () => chainUnavailable('the transaction is still pending', { pending: true }),
    },
  );
}
