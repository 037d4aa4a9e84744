import { enqueueRelay } from '../chain/relay.task.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import { reserveOnchainQuota } from '../limits/quota.ts';
import type { RefusalObserver } from '../limits/refusals.ts';
import type { OnchainSubmitter } from './onchain.ts';
import type { PromoteBatchResult, PromotedAttestation } from './promote-contracts.ts';
import { insertPromotions, livePromotions, lockOriginals, type PromotionOriginal } from './promote-store.ts';
import { sourceTypeOf } from './record.ts';

export interface PromotionServiceDeps {
  db: Db;
  clock: Clock;
  onchain: OnchainSubmitter;
  chainId: number;
  schemaUid: string;
  verifyBaseUrl: string;
  refusals?: RefusalObserver | undefined;
}

/** What one uid of a request came to inside the transaction: its promotion's row, or why it was refused. */
type Staged = { id: string; original: PromotionOriginal } | { error: AppError };

/** Why this original cannot be promoted by this key (undefined: it can, or it was already). */
function refusalOf(uid: string, original: PromotionOriginal | undefined, auth: AuthenticatedKey): AppError | undefined {
  if (!original) return notFound(`Attestation ${uid}`);
  // as revoke answers: records are public, so a 403 tells nothing a read would not
  if (original.accountId !== auth.accountId)
    return new AppError('FORBIDDEN', `Attestation ${uid} belongs to another account.`);
  return undefined;
}

/** Why an original with no live promotion cannot get one. */
function conflictOf(uid: string, original: PromotionOriginal): AppError | undefined {
  if (original.mode === 'onchain')
    return new AppError('ALREADY_ONCHAIN', `Attestation ${uid} is on chain already.`, { uid });
  if (original.revokedAt || original.revoking)
    return new AppError('ALREADY_REVOKED', `Attestation ${uid} is revoked: a revoked claim is not put on chain.`, {
      uid,
      revokedAt: original.revokedAt?.toISOString() ?? null,
    });
  // the relayer cannot sign as the customer's address, and signing as the service would change whose claim it is
  if (original.delegated)
    return new AppError(
      'FORBIDDEN',
      `Attestation ${uid} was signed by your attester ${original.attester}: the service cannot put it on chain in that address's name. Create it on chain with a delegation signed by that address (POST /v1/attestations, mode "onchain").`,
      { attester: original.attester },
    );
  return undefined;
}

/**
 * Promotion: an off-chain attestation put on chain as an on-chain create of the same content hash, type and source
 * type, by the relayer. Per request ONE transaction locks the originals, charges the quota for the new ones, stores
 * them pending (each naming its original) and asks for a relay run; the relayer's confirmation writes the uid, the
 * `attestation.promoted` event and the audit entry (relay-work.ts). An original promoted already answers its
 * promotion, charged nothing.
 */
export function createPromotionService(deps: PromotionServiceDeps) {
  const { db, clock, onchain } = deps;

  async function stage(auth: AuthenticatedKey, uids: string[]): Promise<Staged[]> {
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
          const conflict = conflictOf(uid, original!);
          if (conflict) staged[index] = { error: conflict };
          else fresh.push({ index, original: original! });
        }
      });
      if (fresh.length > 0) {
        await onchain.ensureAvailable();
        // all the new members or none, as a batch of creates is charged
        const { period } = await reserveOnchainQuota(tx, clock, auth, fresh.length, deps.refusals);
        const now = new Date(clock.now());
        const ids = await insertPromotions(
          tx,
          fresh.map(({ original }) => ({
            accountId: auth.accountId,
            apiKeyId: auth.keyId,
            type: original.type,
            digitalSourceType: original.digitalSourceType,
            // its AI details go with it: on chain the Verifiable Credential carries them (docs/decisions.md)
            aiModel: original.aiModel,
            aiPromptHash: original.aiPromptHash,
            contentHash: original.contentHash,
            contentType: original.contentType,
            chainId: deps.chainId,
            schemaUid: deps.schemaUid,
            attester: onchain.attester,
            createdAt: now,
            quotaPeriod: period,
            // the request's own Idempotency-Key claim stores its answer: the relayer's would be a create's
            idempotencyKey: null,
            batchId: null,
            batchIndex: null,
            // its original's refUID may name an off-chain claim, on which EAS would revert the whole transaction
            refUid: null,
            offchainUid: original.uid,
          })),
        );
        await enqueueRelay(tx);
        for (const { index, original } of fresh) staged[index] = { id: ids.get(original.uid)!, original };
      }
      return staged as Staged[];
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
    async promote(auth: AuthenticatedKey, uid: string): Promise<PromotedAttestation> {
      const [staged] = await stage(auth, [uid.toLowerCase()]);
      if ('error' in staged!) throw staged.error;
      return settled(staged!);
    },

    /** Up to 100 in one transaction; a member refused (or whose transaction fails) gets its error, the others go on. */
    async promoteMany(auth: AuthenticatedKey, uids: string[]): Promise<PromoteBatchResult> {
      const lower = uids.map((uid) => uid.toLowerCase());
      const staged = await stage(auth, lower);
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
