import type { Clock } from '../clock.ts';
import { inTransaction, pgSql, type Pool } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { encodeAttestationData, SCHEMA_UID } from '../chain/schema.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import type { CreateAttestationInput, CreatedAttestation, AttestationRecord } from './contracts.ts';
import { hashContent, normalizeContentType, normalizeHash } from './content.ts';
import type { OffchainSigner } from './offchain.ts';
import type { IdempotencyClaim } from '../idempotency/service.ts';
import { decodeCursor, encodeCursor, toRecord } from './record.ts';
import { findByUids, searchByHashes, type HashQuery } from './store.ts';
import { createAttestationWriter } from './writer.ts';
import type { OnchainSubmitter } from './onchain.ts';
import { batched } from '../db/batch.ts';
import { invalidCursor } from '../http/input-rules.ts';
import type { Logger } from '../log.ts';

/** Where a gated call came from, for the audit log. */
export interface RequestInfo {
  requestId: string;
  ip: string;
  /** The Idempotency-Key claim, completed inside the creating transaction so a crash cannot split the two. */
  idempotency?: IdempotencyClaim;
}

export interface AttestationServiceDeps {
  pool: Pool;
  clock: Clock;
  signer: OffchainSigner;
  chainId: number;
  verifyBaseUrl: string;
  /** On-chain creation; absent when the server has no chain. */
  onchain?: OnchainSubmitter | undefined;
  /** Where a failed group commit or batched read is reported. */
  log?: Logger | undefined;
}

export type AttestationService = ReturnType<typeof createAttestationService>;

/** Two read queries under way at most; what arrives meanwhile rides the next one (measured best in BENCHMARKS.md). */
const READ_BATCHING = { maxBatch: 200, maxInFlight: 2 };

/** Creating, reading and searching attestations. */
export function createAttestationService(deps: AttestationServiceDeps) {
  const { pool, clock, signer, chainId, verifyBaseUrl, onchain, log } = deps;
  const sql = pgSql(pool);
  const write = createAttestationWriter(pool, verifyBaseUrl, log);
  const loadByUid = batched(async (uids: string[]) => {
    const found = await findByUids(sql, uids);
    return uids.map((uid) => found.get(uid));
  }, { ...READ_BATCHING, name: 'reads by uid', log });
  const searchPage = batched((queries: HashQuery[]) => searchByHashes(sql, queries), {
    ...READ_BATCHING,
    name: 'searches by hash',
    log,
  });
  return {
    /** One attestation: off-chain is signed here and now; on-chain goes through the relayer. */
    async create(auth: AuthenticatedKey, input: CreateAttestationInput, request: RequestInfo): Promise<CreatedAttestation> {
      const contentHash = input.content !== undefined ? hashContent(input.content) : normalizeHash(input.contentHash!);
      if (input.mode === 'onchain') {
        if (!onchain) throw new AppError('CHAIN_UNAVAILABLE', 'On-chain attestations are not configured on this server; use mode "offchain".', {}, { 'Retry-After': '60' });
        await onchain.ensureAvailable();
        const item = { type: input.type, contentHash, contentType: normalizeContentType(input.contentType) };
        const [id] = await inTransaction(pool, (tx) => onchain.stage(tx, auth, [item], { idempotencyKey: request.idempotency?.key }));
        // from here the relayer owns the Idempotency-Key claim: it stores the response when the transaction is mined
        if (request.idempotency) request.idempotency.completed = true;
        const [outcome] = await onchain.settle([id!]);
        return { uid: outcome!.uid!, txHash: outcome!.txHash, verifyUrl: `${verifyBaseUrl}/${outcome!.uid}`, mode: 'onchain' };
      }
      const now = clock.now();
      const offchain = signer.sign(encodeAttestationData(contentHash, input.type), Math.floor(now / 1000));
      const uid = offchain.sig.uid;
      const response: CreatedAttestation = { uid, txHash: null, verifyUrl: `${verifyBaseUrl}/${uid}`, mode: 'offchain', offchain };
      await write({
        row: {
          uid,
          accountId: auth.accountId,
          apiKeyId: auth.keyId,
          type: input.type,
          mode: 'offchain',
          status: 'confirmed',
          contentHash,
          contentType: normalizeContentType(input.contentType),
          chainId,
          schemaUid: SCHEMA_UID,
          attester: signer.address,
          offchain,
          createdAt: new Date(now),
        },
        audit: {
          accountId: auth.accountId,
          at: new Date(now),
          action: 'attestation.created',
          actorKeyPrefix: auth.prefix,
          resource: `attestation:${uid}`,
          outcome: 'success',
          ip: request.ip,
          requestId: request.requestId,
          details: { mode: 'offchain', type: input.type },
        },
        idempotency: request.idempotency,
        response,
      });
      return response;
    },

    async get(uid: string): Promise<AttestationRecord> {
      const row = await loadByUid(uid.toLowerCase());
      if (!row) throw notFound(`Attestation ${uid}`);
      return toRecord(row, verifyBaseUrl);
    },

    async search(input: { hash: string; limit: number; cursor?: string | undefined }): Promise<{ data: AttestationRecord[]; nextCursor: string | null }> {
      const beforeId = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
      if (input.cursor !== undefined && beforeId === undefined) throw invalidCursor();
      const rows = await searchPage({ contentHash: normalizeHash(input.hash), limit: input.limit + 1, beforeId });
      const page = rows.slice(0, input.limit);
      const last = page.at(-1);
      return { data: page.map((row) => toRecord(row, verifyBaseUrl)), nextCursor: rows.length > input.limit && last ? encodeCursor(last.id) : null };
    },
  };
}
