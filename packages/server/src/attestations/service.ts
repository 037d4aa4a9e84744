import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { GatedRequest } from '../idempotency/service.ts';
import { CHALLENGE, type AuthenticatedKey } from '../keys/service.ts';
import type { Logger } from '../log.ts';
import { auditEntry } from '../audit/entry.ts';
import type { CreateAttestationInput, CreatedAttestation } from './contracts.ts';
import type { DelegationService } from './delegated-service.ts';
import type { OffchainSigner } from './offchain.ts';
import type { OnchainSubmitter } from './onchain.ts';
import { prepareAttestation, signOffchain } from './prepare.ts';
import { checkOrigins, provenanceOf, type Provenance } from './provenance.ts';
import { digitalSourceTypeUri } from './digital-source-type.ts';
import { aiDetailsOf, recordPageAnswer, type RecordPage } from './record.ts';
import type { JsonText } from '../http/json-text.ts';
import { idCursor, pageOf } from '../http/cursor.ts';
import { accountRecords } from './record-store.ts';
import { createPublicReads } from './public-reads.ts';
import type { SearchInput } from './contracts.ts';
import { createAttestationWriter } from './writer.ts';

interface AttestationServiceDeps {
  db: Db;
  clock: Clock;
  signer: OffchainSigner;
  chainId: number;
  verifyBaseUrl: string;
  onchain: OnchainSubmitter;
  /** Customer attesters' signed attestations (absent: a request that carries one fails). */
  delegations?: DelegationService | undefined;
  /** Where a failed group commit or batched read is reported. */
  log?: Logger | undefined;
  /** Bytes of public reads' answers held while their records stand (ANSWER_CACHE_MB; 0 or absent: none). */
  answerCacheBytes?: number | undefined;
}

export type AttestationService = ReturnType<typeof createAttestationService>;

/** mine=true needs a key: its account is whose attestations are listed. */
function mineOf(caller: AuthenticatedKey | undefined): string {
  if (!caller)
    throw new AppError(
      'MISSING_API_KEY',
      'mine=true lists your own attestations: send your API key as "Authorization: Bearer <key>".',
      {},
      { 'WWW-Authenticate': CHALLENGE },
    );
  return caller.accountId;
}

export function createAttestationService(deps: AttestationServiceDeps) {
  const { db, clock, signer, chainId, verifyBaseUrl, onchain, log } = deps;
  const write = createAttestationWriter(db, verifyBaseUrl, log);
  const reads = createPublicReads({ db, verifyBaseUrl, log, cacheBytes: deps.answerCacheBytes ?? 0 });
  return {
    /** One attestation: off-chain is signed here and now; on-chain goes through the relayer. */
    async create(
      auth: AuthenticatedKey,
      input: CreateAttestationInput,
      request: GatedRequest,
    ): Promise<CreatedAttestation> {
      const item = prepareAttestation(input);
      if (item.refUid) {
        const [refused] = await checkOrigins(db, [item]);
        if (refused) throw refused;
      }
      if (item.mode === 'onchain') {
        await onchain.ensureAvailable();
        const opts = { idempotencyKey: request.idempotency?.key };
        const id = item.delegation
          ? (await inTransaction(db, (tx) => onchain.stage(tx, auth, [item], opts)))[0]
          : await onchain.stageOne(auth, item, opts);
        const [outcome] = await onchain.settle([id!], request.idempotency);
        return {
          uid: outcome!.uid!,
          txHash: outcome!.txHash,
          verifyUrl: `${verifyBaseUrl}/${outcome!.uid}`,
          mode: 'onchain',
          digitalSourceType: digitalSourceTypeUri(item.digitalSourceType),
          ...(item.ai ? { ai: { ...item.ai, offchain: null } } : {}),
        };
      }
      const now = clock.now();
      const row = await signOffchain(item, { auth, signer, chainId, now });
      const uid = row.uid!;
      const response: CreatedAttestation = {
        uid,
        txHash: null,
        verifyUrl: `${verifyBaseUrl}/${uid}`,
        mode: 'offchain',
        digitalSourceType: digitalSourceTypeUri(item.digitalSourceType),
        offchain: row.offchain as CreatedAttestation['offchain'],
        ...(item.ai ? { ai: aiDetailsOf(row)! } : {}),
      };
      const audit = auditEntry({
        accountId: auth.accountId,
        actorKeyPrefix: auth.prefix,
        at: new Date(now),
        action: 'attestation.created',
        resource: `attestation:${uid}`,
        details: { mode: 'offchain', type: item.type, ...(item.delegation ? { attester: row.attester } : {}) },
        origin: request,
      });
      if (item.delegation) {
        if (!deps.delegations) throw new Error('customer attesters are not wired in this process');
        await deps.delegations.writeOffchain(auth, { row, audit, idempotency: request.idempotency, response });
      } else await write({ row, audit, idempotency: request.idempotency, response });
      return response;
    },

    /** A stored attestation by uid (pending on-chain ones have none yet), read with the other reads of its turn. */
    row: reads.row,

    /** The chain from `uid` back to its origin (docs/decisions.md, "Provenance"). */
    provenance: (uid: string): Promise<Provenance> => provenanceOf(db, uid, verifyBaseUrl),

    get: reads.get,

    /** A content hash's attestations (public), or with mine=true the caller's account's own, filtered. */
    async search(input: SearchInput, caller: AuthenticatedKey | undefined): Promise<JsonText<RecordPage>> {
      const beforeId = input.cursor === undefined ? undefined : idCursor.decode(input.cursor);
      if (input.mine === undefined) return reads.hashPage(input.hash!, input.limit, beforeId);
      const rows = await accountRecords(db, {
        accountId: mineOf(caller),
        type: input.type,
        mode: input.mode,
        from: input.from === undefined ? undefined : new Date(input.from),
        to: input.to === undefined ? undefined : new Date(input.to),
        beforeId,
        limit: input.limit + 1,
      });
      const page = pageOf(rows, input.limit, (last) => idCursor.encode(last.id));
      return recordPageAnswer(page.rows, page.nextCursor, verifyBaseUrl);
    },
  };
}
