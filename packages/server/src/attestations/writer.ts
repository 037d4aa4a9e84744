import type { AuditFields } from '../audit/chain.ts';
import { appendAuditEntries } from '../audit/append.ts';
import { batched } from '../db/group-commit.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { IdempotencyClaim } from '../idempotency/service.ts';
import type { Logger } from '../log.ts';
import { completeMany } from '../idempotency/store.ts';
import { emitAttestationEvents } from './events.ts';
import { insertAttestations, type NewAttestation } from './store.ts';

/** One attestation to record: its row, its audit entry and, with an Idempotency-Key, the response to keep. */
interface AttestationWrite {
  row: NewAttestation;
  audit: AuditFields;
  idempotency?: IdempotencyClaim | undefined;
  response: unknown;
}

/**
 * Records attestations with group commit: the writes that arrive in one turn of the event loop, or while the one
 * transaction under way runs (docs/decisions.md, "Batching": why one), share one transaction, in which each
 * attestation, its audit entry and its idempotency response commit together (a crash leaves all or none of them),
 * with their `attestation.created` webhook deliveries (the outbox). A failed transaction keeps nothing of any write,
 * so batched() runs each write again in a transaction of its own and only the write at fault fails; a claim is marked
 * completed only once its transaction committed.
 */
export function createAttestationWriter(
  db: Db,
  verifyBaseUrl: string,
  log?: Logger,
): (write: AttestationWrite) => Promise<void> {
  return batched(
    async (writes: AttestationWrite[]) => {
      await inTransaction(db, async (tx) => {
        await insertAttestations(
          tx,
          writes.map((w) => w.row),
        );
        const claims = writes.filter((w) => w.idempotency);
        await completeMany(
          tx,
          claims.map((w) => ({
            apiKeyId: w.idempotency!.apiKeyId,
            key: w.idempotency!.key,
            status: w.idempotency!.status,
            body: w.response,
          })),
        );
        await emitAttestationEvents(
          tx,
          'attestation.created',
          writes.map((w) => ({ accountId: w.row.accountId, uid: w.row.uid! })),
          verifyBaseUrl,
          writes[0]!.row.createdAt,
        );
        await appendAuditEntries(
          tx,
          writes.map((w) => w.audit),
        );
      });
      for (const w of writes) w.idempotency?.markCompleted();
      return writes.map(() => undefined);
    },
    { maxBatch: 100, maxInFlight: 1, name: 'attestation writes', log },
  );
}
