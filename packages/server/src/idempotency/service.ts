import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { canonicalJson } from '../audit/chain.ts';
import type { RequestOrigin } from '../audit/entry.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import type { Sealer } from '../system/sealer.ts';
import { claim, complete, find, release, takeOver, type IdempotencyRow } from './store.ts';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim with no response after this long belongs to a request that died (a crash); a retry may take it over. */
const ABANDONED_AFTER_MS = 2 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What a procedure holding a claim does with it: store its response (ideally in its own transaction). */
export interface IdempotencyClaim {
  apiKeyId: string;
  key: string;
  status: number;
  /** `sealed`: the answer holds a secret shown once (a webhook's): stored sealed under SERVICE_SECRET. */
  complete(db: Db, body: unknown, opts?: { sealed: boolean }): Promise<void>;
  /**
   * Says the response is stored (by a transaction that committed it with others) or that someone else (the relayer)
   * now owns storing it: from then on the claim is never released.
   */
  markCompleted(): void;
  /** Set by complete() and markCompleted(). */
  readonly completed: boolean;
}

/** A gated call as a service sees it: where it came from (for the audit log) and its Idempotency-Key claim. */
export interface GatedRequest extends RequestOrigin {
  /** The Idempotency-Key claim, completed inside the changing transaction so a crash cannot split the two. */
  idempotency?: IdempotencyClaim;
}

/** A claim to run the request (its response stored by `complete` when no transaction of the procedure stored it), or a replay. */
type Begun =
  | { kind: 'claimed'; claim: IdempotencyClaim; release(): Promise<void>; complete(body: unknown): Promise<void> }
  | { kind: 'replay'; body: unknown };

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;

/** `Idempotency-Key` on POSTs: the first response for (API key, Idempotency-Key) is replayed for 24 h. */
export function createIdempotencyService(
  db: Db,
  clock: Clock,
  opts: { waitMs?: number; pollMs?: number; sealer?: Sealer } = {},
) {
  const waitMs = opts.waitMs ?? 30_000;
  const pollMs = opts.pollMs ?? 50;
  const { sealer } = opts;

  function conflict(
    message: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): AppError {
    return new AppError('IDEMPOTENCY_CONFLICT', message, details, headers);
  }

  function claimed(apiKeyId: string, key: string, status: number): Begun {
    let completed = false;
    const handle: IdempotencyClaim = {
      apiKeyId,
      key,
      status,
      get completed() {
        return completed;
      },
      markCompleted() {
        completed = true;
      },
      async complete(tx, body, how) {
        const stored = how?.sealed && sealer ? { [SEALED]: sealer.seal(JSON.stringify(body)) } : body;
        await complete(tx, apiKeyId, key, status, stored);
        completed = true;
      },
    };
    return {
      kind: 'claimed',
      claim: handle,
      release: () => release(db, apiKeyId, key),
      complete: (body) => handle.complete(db, body),
    };
  }

  /** A stored answer as it was first given: opened when sealed; one sealed under another SERVICE_SECRET is lost. */
  function opened(body: unknown): unknown {
    const sealed = (body as Record<string, unknown> | null)?.[SEALED];
    if (typeof sealed !== 'string') return body;
    const text = sealer?.open(sealed);
    if (text === undefined)
      throw conflict(
        'The first answer to this Idempotency-Key can no longer be read; use a new key for a new request.',
      );
    return JSON.parse(text) as unknown;
  }

  return {
    /**
     * Starts a request under an Idempotency-Key: a claim to run it, or the stored response to replay. A
     * concurrent duplicate waits (bounded) for the first to finish; the same key with another body is a 409.
     */
    async begin(apiKeyId: string, key: string, procedure: string, input: unknown, status: number): Promise<Begun> {
      if (!KEY_PATTERN.test(key)) {
        throw new AppError(
          'VALIDATION_FAILED',
          'Invalid request: Idempotency-Key must be 1 to 255 visible ASCII characters.',
          { errors: [{ path: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }] },
        );
      }
      const requestHash = createHash('sha256').update(canonicalJson({ procedure, input })).digest('hex');
      const waitUntil = Date.now() + waitMs; // real time: a test's manual clock does not move while we wait
      for (;;) {
        const now = clock.now();
        if (await claim(db, apiKeyId, key, requestHash, new Date(now), new Date(now + IDEMPOTENCY_TTL_MS)))
          return claimed(apiKeyId, key, status);
        const row = await find(db, apiKeyId, key);
        if (!row) continue; // released between our insert and read: claim again
        if (
          isReusable(row, now) &&
          (await takeOver(
            db,
            apiKeyId,
            key,
            row.createdAt,
            requestHash,
            new Date(now),
            new Date(now + IDEMPOTENCY_TTL_MS),
          ))
        ) {
          return claimed(apiKeyId, key, status);
        }
        if (row.requestHash !== requestHash) {
          throw conflict(
            'This Idempotency-Key was already used with a different request; use a new key for a new request.',
          );
        }
        if (row.responseStatus !== null) return { kind: 'replay', body: opened(row.responseBody) };
        if (Date.now() >= waitUntil) {
          throw conflict(
            'A request with this Idempotency-Key is still in progress; retry shortly.',
            { inProgress: true },
            { 'Retry-After': '1' },
          );
        }
        await sleep(pollMs);
      }
    },
  };
}

/** The key of a stored answer sealed by `complete(…, { sealed: true })`; no answer of the API has it. */
const SEALED = '$sealed';

function isReusable(row: IdempotencyRow, now: number): boolean {
  if (row.expiresAt.getTime() <= now) return true;
  return row.responseStatus === null && row.createdAt.getTime() <= now - ABANDONED_AFTER_MS;
}
