import type { ChainHealth } from '../chain/health.ts';
import { enqueueRelay } from '../chain/relay.task.ts';
import type { Clock } from '../clock.ts';
import { batched } from '../db/group-commit.ts';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { IdempotencyClaim } from '../idempotency/service.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import { reserveOnchainQuota } from '../limits/quota.ts';
import type { RefusalObserver } from '../limits/refusals.ts';
import type { DelegationService } from './delegated-service.ts';
import type { PreparedAttestation } from './prepare.ts';
import { waitForRelayer } from './relay-wait.ts';
import { insertPending, outcomesOf, type PendingAttestation, type RelayOutcome } from './pending-store.ts';

function chainUnavailable(reason: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError(
    'CHAIN_UNAVAILABLE',
    `On-chain attestations are unavailable right now (${reason}); nothing was charged. Retry later, or use mode "offchain".`,
    extra,
    { 'Retry-After': '10' },
  );
}

/**
 * On-chain creation, API side: refuse fast when the chain is down; else reserve quota, store the pending items and
 * ask for a relay run in ONE transaction (the caller's), then wait (bounded) for the relayer's outcome.
 */
export function createOnchainSubmitter(deps: {
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
}) {
  const { db, clock, health } = deps;
  const waitMs = deps.waitMs ?? 60_000;
  const delegations = (): DelegationService => {
    if (!deps.delegations) throw new Error('customer attesters are not wired in this process');
    return deps.delegations;
  };
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
     * In the caller's transaction: reserves the items' quota (all or none), stores them pending for the relayer and
     * asks for a relay run. Returns their ids in order.
     */
    async stage(
      tx: Db,
      auth: AuthenticatedKey,
      items: PreparedAttestation[],
      opts: { idempotencyKey?: string | undefined; batchId?: string | undefined },
    ): Promise<string[]> {
      const now = clock.now();
      // signatures first (no lock, no charge): a forged request costs nothing
      const delegated = items.some((item) => item.delegation) ? await delegations().verify(items) : [];
      const reservation = await reserveOnchainQuota(tx, clock, auth, items.length, deps.refusals);
      const rows = items.map((item): PendingAttestation => ({
        accountId: auth.accountId,
        apiKeyId: auth.keyId,
        type: item.type,
        contentHash: item.contentHash,
        contentType: item.contentType,
        chainId: deps.chainId,
        schemaUid: deps.schemaUid,
        attester: deps.attester,
        createdAt: new Date(now),
        quotaPeriod: reservation.period,
        idempotencyKey: opts.idempotencyKey ?? null,
        batchId: opts.batchId ?? null,
        batchIndex: item.batchIndex ?? null,
      }));
      const ids =
        delegated.length > 0 ? await delegations().stage(tx, auth, delegated, rows) : await insertPending(tx, rows);
      await enqueueRelay(tx);
      return ids;
    },

    /**
     * Hands the request's Idempotency-Key claim to the relayer (it stores the response when the transaction is
     * mined), then waits until the relayer has mined (or given up on) these items; 503 if it failed or takes too long.
     */
    async settle(ids: string[], claim: IdempotencyClaim | undefined): Promise<RelayOutcome[]> {
      claim?.markCompleted();
      return waitForRelayer<RelayOutcome[]>(
        async () => {
          const outcomes = await Promise.all(ids.map((id) => loadOutcomes(id)));
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
    },
  };
}

export type OnchainSubmitter = ReturnType<typeof createOnchainSubmitter>;
