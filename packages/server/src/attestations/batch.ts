import { randomUUID } from 'node:crypto';
import type { AuditAction } from '@attestation-service/protocol';
import { auditEntry } from '../audit/entry.ts';
import { appendAuditEntries } from '../audit/append.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { GatedRequest } from '../idempotency/service.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import { emitEvents } from '../webhooks/outbox.ts';
import type { CreateAttestationInput, CreatedAttestation } from './contracts.ts';
import { batchCompletedEvent, emitAttestationEvents } from './events.ts';
import type { OffchainSigner } from './offchain.ts';
import type { DelegationService } from './delegated-service.ts';
import type { OnchainSubmitter } from './onchain.ts';
import { prepareAttestation, signOffchain } from './prepare.ts';
import { checkOrigins } from './provenance.ts';
import { aiDetailsOf, sourceTypeOf } from './record.ts';
import { batchItems, type BatchItemRow } from './store.ts';

interface BatchResult {
  batchId: string;
  txHash: string | null;
  attestations: CreatedAttestation[];
  /** Items refused alone (their refUid), by request index. */
  errors?: Array<{ index: number; code: string; message: string; details: Record<string, unknown> }>;
}

/** A batch's response from its stored items (request order): shared by the API and the relayer that completes it. */
export function batchResponse(
  batchId: string,
  rows: Array<Omit<BatchItemRow, 'batchId'>>,
  verifyBaseUrl: string,
): BatchResult {
  return {
    batchId,
    txHash: rows.find((row) => row.mode === 'onchain')?.txHash ?? null,
    attestations: rows.map((row) => ({
      uid: row.uid!,
      txHash: row.txHash,
      verifyUrl: `${verifyBaseUrl}/${row.uid}`,
      mode: row.mode,
      digitalSourceType: sourceTypeOf(row),
      ...(row.offchain ? { offchain: row.offchain as CreatedAttestation['offchain'] } : {}),
      ...(row.aiModel === null ? {} : { ai: aiDetailsOf(row)! }),
    })),
  };
}

/**
 * Up to 100 attestations in one request: validated all-or-nothing (by the contract), every on-chain item in ONE
 * multiAttest with its quota reserved all-or-none, off-chain items signed, everything stored in one transaction.
 */
export function createBatchService(deps: {
  db: Db;
  clock: Clock;
  signer: OffchainSigner;
  onchain: OnchainSubmitter;
  delegations: DelegationService;
  chainId: number;
  verifyBaseUrl: string;
}) {
  const { db, clock, signer, onchain } = deps;
  return {
    async create(
      auth: AuthenticatedKey,
      inputs: CreateAttestationInput[],
      request: GatedRequest,
    ): Promise<BatchResult> {
      const batchId = randomUUID();
      const now = clock.now();
      const prepared = inputs.map((input, batchIndex) => prepareAttestation(input, batchIndex));
      // an item whose refUid is refused fails alone; the others are made (their batchIndex keeps request order)
      const refusals = await checkOrigins(db, prepared);
      const items = prepared.filter((_, index) => !refusals[index]);
      const errors = refusals.flatMap((error, index) =>
        error ? [{ index, code: error.errorCode, message: error.message, details: error.details }] : [],
      );
      if (items.length === 0) throw refusals[0]!;
      const onchainItems = items.filter((item) => item.mode === 'onchain');
      if (onchainItems.length > 0) await onchain.ensureAvailable();
      const offchainRows = await Promise.all(
        items
          .filter((item) => item.mode === 'offchain')
          .map((item) => signOffchain(item, { auth, signer, chainId: deps.chainId, now, batchId })),
      );
      const audit = (action: AuditAction, resource: string, details: Record<string, unknown>) =>
        auditEntry({
          accountId: auth.accountId,
          actorKeyPrefix: auth.prefix,
          at: new Date(now),
          action,
          resource,
          details,
          origin: request,
        });
      const ids = await inTransaction(db, async (tx) => {
        const staged =
          onchainItems.length > 0
            ? await onchain.stage(tx, auth, onchainItems, { idempotencyKey: request.idempotency?.key, batchId })
            : [];
        // customers' signed packages are checked (registration, replay) and marked; the service's are inserted as is
        await deps.delegations.insertOffchain(
          tx,
          auth,
          offchainRows,
          offchainRows.map((row) => `attestations.${row.batchIndex}.delegation`),
        );
        if (staged.length === 0 && request.idempotency) {
          const made = batchResponse(
            batchId,
            offchainRows.map((r) => ({ ...r, txHash: null })),
            deps.verifyBaseUrl,
          );
          await request.idempotency.complete(tx, errors.length > 0 ? { ...made, errors } : made);
        }
        await emitAttestationEvents(
          tx,
          'attestation.created',
          offchainRows.map((row) => ({ accountId: auth.accountId, uid: row.uid! })),
          deps.verifyBaseUrl,
          new Date(now),
        );
        // with on-chain items, the relayer emits batch.completed when their transaction is mined
        if (staged.length === 0)
          await emitEvents(
            tx,
            [
              batchCompletedEvent(
                auth.accountId,
                batchId,
                offchainRows.map((r) => ({ ...r, txHash: null })),
              ),
            ],
            new Date(now),
          );
        await appendAuditEntries(tx, [
          ...offchainRows.map((row) =>
            audit('attestation.created', `attestation:${row.uid}`, { mode: 'offchain', type: row.type, batchId }),
          ),
          audit('batch.created', `batch:${batchId}`, {
            items: items.length,
            ...(errors.length > 0 ? { refused: errors.map((e) => e.index) } : {}),
            onchain: onchainItems.length,
            offchain: offchainRows.length,
          }),
        ]);
        return staged;
      });
      // the relayer stores the response (with every uid) when the transaction is mined
      if (ids.length > 0) await onchain.settle(ids, request.idempotency);
      const result = batchResponse(batchId, await batchItems(db, [batchId]), deps.verifyBaseUrl);
      return errors.length > 0 ? { ...result, errors } : result;
    },
  };
}

export type BatchService = ReturnType<typeof createBatchService>;
