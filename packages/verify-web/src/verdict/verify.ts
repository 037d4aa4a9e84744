import type { Hex } from 'viem';
import { rateLimitedFor, type RecordSource } from '../records.ts';
import { anchorChecks } from './anchor.ts';
import { createTtlCache } from './cache.ts';
import { recordChecks, statusListCheck } from './compare.ts';
import type { EasReader, TrustAnchors } from './eas.ts';
import { offchainChecks } from './offchain.ts';
import { onchainChecks } from './onchain.ts';
import type { StatusListChecker, StatusListSignal, Verdict } from './types.ts';

const UID_PATTERN = /^0x[0-9a-fA-F]{64}$/;

interface VerifierOptions {
  records: RecordSource;
  eas: EasReader;
  anchors: TrustAnchors;
  /** How long a verdict is reused (badges are embedded widely; the API and the RPC are not hit per view). */
  cacheTtlMs: number;
  /** The service's status list, read beside the chain (without one, the page says it was not checked). */
  statusList?: StatusListChecker;
  nowSeconds?: () => number;
}

const NO_STATUS_LIST: StatusListChecker = {
  check: async () => ({ state: 'unchecked', reason: 'this verifier is not set up to read status lists' }),
};

/** Whether the list says otherwise than the chain (a list read from the cache is then read again). */
const disagrees = (signal: StatusListSignal, chainRevokedAt: bigint) =>
  (signal.state === 'revoked' || signal.state === 'not-revoked') &&
  (signal.state === 'revoked') !== chainRevokedAt > 0n;

export type Verifier = ReturnType<typeof createVerifier>;

/**
 * The verdict on one uid: our record through the API, then the chain (or the signature) as the judge. The
 * record only says what to look for; every claim that matters is re-derived from the chain, the EIP-712
 * signature and the configured trust anchors; the service's status list is read beside the chain's revocation, and
 * the two must agree. A failure to reach the API or the chain is `unavailable`, and the API refusing this visitor's
 * lookups for now is `rate-limited`: never a verdict, and neither is cached.
 */
export function createVerifier(opts: VerifierOptions) {
  const nowSeconds = opts.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const cache = createTtlCache<Verdict>({ ttlMs: opts.cacheTtlMs, maxEntries: 10_000 });
  const statusList = opts.statusList ?? NO_STATUS_LIST;

  async function compute(uid: string, visitorIp: string): Promise<Verdict> {
    const base = { uid, record: null, checks: [], chainRevokedAt: null, anchor: null, statusList: null };
    let record;
    try {
      record = await opts.records.get(uid, visitorIp);
    } catch (error) {
      const retryAfterSeconds = rateLimitedFor(error);
      return retryAfterSeconds
        ? { ...base, state: 'rate-limited', retryAfterSeconds }
        : { ...base, state: 'unavailable' };
    }
    if (!record) return { ...base, state: 'not-found' };
    try {
      const [judged, anchored, listed, provenance] = await Promise.all([
        record.mode === 'onchain'
          ? onchainChecks(record, opts.eas, opts.anchors, nowSeconds())
          : offchainChecks(record, opts.eas, opts.anchors, nowSeconds()),
        anchorChecks(record, opts.eas, opts.anchors),
        statusList.check(record, visitorIp),
        // the chain of origins is shown beside the verdict, never part of it: no answer leaves it out
        record.refUid && opts.records.provenance
          ? opts.records.provenance(record.uid, visitorIp).catch(() => undefined)
          : undefined,
      ]);
      const signal = disagrees(listed, judged.revokedAt) ? await statusList.check(record, visitorIp, true) : listed;
      const listCheck = statusListCheck(signal, judged.revokedAt);
      const checks = [
        ...recordChecks(uid, record, opts.anchors),
        ...judged.checks,
        ...anchored.checks,
        ...(listCheck ? [listCheck] : []),
      ];
      const chainRevokedAt = judged.revokedAt > 0n ? new Date(Number(judged.revokedAt) * 1000).toISOString() : null;
      const state = checks.some((c) => !c.ok) ? 'mismatch' : chainRevokedAt ? 'revoked' : 'verified';
      const verdict: Verdict = {
        state,
        uid,
        record,
        checks,
        chainRevokedAt,
        anchor: anchored.anchor,
        statusList: signal,
      };
      return provenance ? { ...verdict, provenance } : verdict;
    } catch {
      return { ...base, record, state: 'unavailable' };
    }
  }

  return {
    /** The verdict for a uid (malformed ones are simply not found). */
    verify(uid: string, visitorIp: string): Promise<Verdict> {
      if (!UID_PATTERN.test(uid))
        return Promise.resolve({
          state: 'not-found',
          uid,
          record: null,
          checks: [],
          chainRevokedAt: null,
          anchor: null,
          statusList: null,
        });
      const key = uid.toLowerCase() as Hex;
      return cache.get(
        key,
        () => compute(key, visitorIp),
        (v) => v.state !== 'unavailable' && v.state !== 'rate-limited',
      );
    },
  };
}
