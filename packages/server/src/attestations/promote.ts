import { enqueueRelay } from '../chain/relay.task.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import { reserveOnchainQuota } from '../limits/quota.ts';
import type { RefusalObserver } from '../limits/refusals.ts';
import type { DelegationInput } from './delegated-contracts.ts';
import type { DelegationService } from './delegated-service.ts';
import type { OnchainSubmitter } from './onchain.ts';
import { conflictOf, promotionRow, refusalOf, signedItemOf } from './promote-checks.ts';
import type { PromoteBatchResult, PromotedAttestation } from './promote-contracts.ts';
import { insertPromotions, livePromotions, lockOriginals, type PromotionOriginal } from './promote-store.ts';
import { sourceTypeOf } from './record.ts';

interface PromotionServiceDeps {
  db: Db;
  clock: Clock;
  onchain: OnchainSubmitter;
  /** Checks and stages a customer attester's signed request, as for a delegated create. */
  delegations: DelegationService;
  chainId: number;
  schemaUid: string;
  verifyBaseUrl: string;
  refusals?: RefusalObserver | undefined;
}

/** What one uid of a request came to inside the transaction: its promotion's row, or why it was refused. */
type Staged = { id: string; original: PromotionOriginal } | { error: AppError };

/**
 * Promotion: an off-chain attestation put on chain as an on-chain create of the same content hash, type and source
 * type, by the relayer, or by the customer's attester's signed request when that attester signed the original. Per
 * request ONE transaction locks the originals, charges the quota for the new ones, stores them pending (each naming
 * its original) and asks for a relay run; the relayer's confirmation writes the uid, the `attestation.promoted` event
 * and the audit entry (relay-work.ts). An original promoted already answers its promotion, charged nothing.
 */
export function createPromotionService(deps: PromotionServiceDeps) {
  const { db, clock, onchain, delegations } = deps;
  const rowAt = (period: string) => ({
    chainId: deps.chainId,
    schemaUid: deps.schemaUid,
    attester: onchain.attester,
    now: new Date(clock.now()),
    period,
  });

  /**
   * The relayer's promotions of `uids`: each member staged or refused alone, the new ones charged together (`batch`:
   * errors name the member, `uids.3`, rather than the request's own fields).
   */
  async function stage(auth: AuthenticatedKey, uids: string[], batch: boolean): Promise<Staged[]> {
    return inTransaction(db, async (tx) => {
      const originals = await lockOriginals(tx, uids);
      const live = await livePromotions(tx, uids);
      const staged: Array<Staged | undefined> = [];
      const fresh: Array<{ index: number; original: PromotionOriginal }> = [];
      uids.forEach((uid, index) => {
        const original = originals.get(uid);
        const refused = refusalOf(uid, original, auth);
        if (refused) staged[index] = { error: refused };
        else if (live.has(uid)) staged[index] = { id: live.get(uid)!, original: original! };
        else {
          const conflict = conflictOf(uid, original!, undefined, batch ? `uids.${index}` : 'delegation');
          if (conflict) staged[index] = { error: conflict };
          else fresh.push({ index, original: original! });
        }
      });
      if (fresh.length > 0) {
        await onchain.ensureAvailable();
        // all the new members or none, as a batch of creates is charged
        const { period } = await reserveOnchainQuota(tx, clock, auth, fresh.length, deps.refusals);
        const at = rowAt(period);
        const ids = await insertPromotions(
          tx,
          fresh.map(({ original }) => promotionRow(original, auth, at)),
        );
        await enqueueRelay(tx);
        for (const { index, original } of fresh) staged[index] = { id: ids.get(original.uid)!, original };
      }
      return staged as Staged[];
    });
  }

  /**
   * One promotion by the customer's attester: its request checked as a delegated create's (signature, registration,
   * deadline, nonce) in the transaction that locks the original, before anything is charged.
   */
  async function stageSigned(auth: AuthenticatedKey, uid: string, delegation: DelegationInput): Promise<Staged> {
    return inTransaction(db, async (tx) => {
      const original = (await lockOriginals(tx, [uid])).get(uid);
      const refused = refusalOf(uid, original, auth);
      if (refused) throw refused;
      const live = await livePromotions(tx, [uid]);
      if (live.has(uid)) return { id: live.get(uid)!, original: original! };
      const conflict = conflictOf(uid, original!, delegation, 'delegation');
      if (conflict) throw conflict;
      const verified = await delegations.verify([signedItemOf(original!, delegation)]);
      await onchain.ensureAvailable();
      const { period } = await reserveOnchainQuota(tx, clock, auth, 1, deps.refusals);
      const [id] = await delegations.stage(tx, auth, verified, [promotionRow(original!, auth, rowAt(period))]);
      await enqueueRelay(tx);
      return { id: id!, original: original! };
    });
  }

  /** Waits for the relayer to mine a staged promotion: the answer of an on-chain create, with its original's uid. */
  async function settled(staged: { id: string; original: PromotionOriginal }): Promise<PromotedAttestation> {
    const [outcome] = await onchain.settle([staged.id], undefined);
    return {
      uid: outcome!.uid!,
      txHash: outcome!.txHash,
      verifyUrl: `${deps.verifyBaseUrl}/${outcome!.uid}`,
      mode: 'onchain',
      digitalSourceType: sourceTypeOf(staged.original),
      offchainUid: staged.original.uid,
    };
  }

  return {
    async promote(auth: AuthenticatedKey, uid: string, delegation?: DelegationInput): Promise<PromotedAttestation> {
      const lower = uid.toLowerCase();
      const [staged] = delegation ? [await stageSigned(auth, lower, delegation)] : await stage(auth, [lower], false);
      if ('error' in staged!) throw staged.error;
      return settled(staged!);
    },

    /** Up to 100 in one transaction; a member refused (or whose transaction fails) gets its error, the others go on. */
    async promoteMany(auth: AuthenticatedKey, uids: string[]): Promise<PromoteBatchResult> {
      const lower = uids.map((uid) => uid.toLowerCase());
      const staged = await stage(auth, lower, true);
      const results = await Promise.all(
        staged.map(async (member, index) => {
          const offchainUid = lower[index]!;
          try {
            if ('error' in member) throw member.error;
            return { offchainUid, attestation: await settled(member), error: null };
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            const { errorCode: code, message, details } = error;
            return { offchainUid, attestation: null, error: { code, message, details } };
          }
        }),
      );
      return { results };
    },
  };
}

export type PromotionService = ReturnType<typeof createPromotionService>;
