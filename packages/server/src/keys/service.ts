import { timingSafeEqual } from 'node:crypto';
import { cliAccount, type AccountRef } from '../accounts/cli-account.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { auditEntry, type MemberActor, type RequestOrigin } from '../audit/entry.ts';
import { appendAudit } from '../audit/append.ts';
import { batched } from '../db/group-commit.ts';
import { planTier } from '../rules.ts';
import { hashSecret, parseKey, TIERS, type Tier } from './format.ts';
import { createLastUseRecorder, type LastUseRecorder } from './last-used.ts';
import { mintKey } from './mint.ts';
import { findKeyByPrefix, findKeysForAuth, listKeys, markRevoked, type KeyRecord } from './store.ts';

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  accountName: string;
  prefix: string;
  tier: Tier;
  /**
   * The tier whose numbers bound the account as a whole (its monthly on-chain quota, its per-minute ceiling): its
   * plan, or the key's tier when the operator's CLI minted the key above the plan (a member can mint only within it).
   */
  accountTier: Tier;
  /** Whether someone answerable stands behind the account (accounts/standing.ts): a free one needs it on-chain. */
  vouched: boolean;
}

/** The account-wide tier of a key: members' keys never lift it above the plan (docs/decisions.md). */
export function accountTierOf(plan: string, key: { tier: Tier; createdBy: string | null }): Tier {
  const ofPlan = planTier(plan);
  if (key.createdBy !== null) return ofPlan;
  return TIERS.indexOf(key.tier) > TIERS.indexOf(ofPlan) ? key.tier : ofPlan;
}

/** A failed authentication of a key that exists, for the audit log (never the secret). */
export interface KnownKeyFailure {
  accountId: string;
  prefix: string;
  reason: 'wrong_secret' | 'wrong_tier' | 'revoked';
}

export interface KeySummary {
  prefix: string;
  tier: string;
  account: string;
  /** The label given at creation (`keys create --name`), if any. */
  name: string | null;
  createdAt: string;
  revokedAt: string | null;
}

const DUMMY_HASH = hashSecret('0'.repeat(32));
const BEARER = /^Bearer(?: (.*))?$/i;

/** RFC 6750's challenge on every 401: no error attribute when no key came, invalid_token when one did and failed. */
export const CHALLENGE = 'Bearer realm="attestation-service"';
const INVALID_TOKEN = { 'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"` };

function invalid(): AppError {
  return new AppError('INVALID_API_KEY', 'The API key is not valid.', {}, INVALID_TOKEN);
}

function summary(row: KeyRecord): KeySummary {
  return {
    prefix: row.prefix,
    tier: row.tier,
    account: row.accountName,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

export type KeyService = ReturnType<typeof createKeyService>;

/**
 * API keys: minted by the operator CLI (the dashboard's members mint theirs through keys/member-keys.ts), revoked by
 * either, checked on every gated call (no cache: a revocation holds from the next call on).
 */
export function createKeyService(db: Db, clock: Clock) {
  const lastUse = createLastUseRecorder(db, clock);
  const loadKey = keyLoader(db);
  return {
    /** `last_used_at`, noted per authentication and written in batches (main.ts flushes it periodically and at stop). */
    lastUse,

    /** Checks an `Authorization` header; throws the matching 401 (telling `onKnownKeyFailure` when the prefix exists). */
    authenticate: (header: string | undefined, onKnownKeyFailure?: (failure: KnownKeyFailure) => void) =>
      authenticate({ loadKey, lastUse }, header, onKnownKeyFailure),

    /**
     * Mints a key for the operator (accounts/cli-account.ts: an account named for the first time is opened, one opened
     * in the dashboard only by id); the full key is in the result and nowhere else, ever.
     */
    async create(input: {
      tier: Tier;
      account: AccountRef | string;
      name?: string;
    }): Promise<{ key: string; prefix: string; tier: Tier; account: string; accountId: string; opened: boolean }> {
      const ref = typeof input.account === 'string' ? { name: input.account } : input.account;
      const at = new Date(clock.now());
      const { account, minted } = await inTransaction(db, async (tx) => {
        const found = await cliAccount(tx, ref, { open: true });
        return {
          account: found,
          minted: await mintKey(tx, { accountId: found.id, tier: input.tier, name: input.name, at }),
        };
      });
      return {
        key: minted.key,
        prefix: minted.prefix,
        tier: input.tier,
        account: account.name,
        accountId: account.id,
        opened: account.opened,
      };
    },

    async list(account?: string): Promise<KeySummary[]> {
      return (await listKeys(db, account)).map(summary);
    },

    /**
     * Revokes for good; revoking a revoked key changes nothing. By the operator's CLI unless a dashboard member
     * (`by.actor`) asks; with `by.accountId`, a key of another account is not found.
     */
    async revoke(
      prefix: string,
      by: { accountId?: string; actor?: MemberActor; origin?: RequestOrigin } = {},
    ): Promise<KeySummary | undefined> {
      return inTransaction(db, async (tx) => {
        const before = await findKeyByPrefix(tx, prefix);
        if (!before || (by.accountId !== undefined && before.accountId !== by.accountId)) return undefined;
        if (before.revokedAt) return summary(before);
        const at = new Date(clock.now());
        const row = (await markRevoked(tx, prefix, at))!;
        await appendAudit(
          tx,
          auditEntry({
            accountId: row.accountId,
            at,
            action: 'api_key.revoked',
            resource: `api_key:${prefix}`,
            actorMember: by.actor ?? null,
            origin: by.origin ?? null,
            details: { via: by.actor ? 'dashboard' : 'cli' },
          }),
        );
        return summary(row);
      });
    },
  };
}

/** Keys by prefix for authentication, the lookups of requests that arrive together made as one query. */
function keyLoader(db: Db) {
  return batched(
    async (prefixes: string[]) => {
      const found = await findKeysForAuth(db, prefixes);
      return prefixes.map((prefix) => found.get(prefix));
    },
    { maxInFlight: 2 },
  );
}

type KeyLoader = ReturnType<typeof keyLoader>;

/** The service's authenticate: the key behind an `Authorization` header, or the 401 that fits. */
async function authenticate(
  keys: { loadKey: KeyLoader; lastUse: LastUseRecorder },
  header: string | undefined,
  onKnownKeyFailure?: (failure: KnownKeyFailure) => void,
): Promise<AuthenticatedKey> {
  const { loadKey, lastUse } = keys;
  const bearer = header === undefined ? undefined : BEARER.exec(header);
  if (header === undefined || header.trim() === '' || (bearer && !bearer[1])) {
    throw new AppError(
      'MISSING_API_KEY',
      'Send your API key as "Authorization: Bearer <key>".',
      {},
      { 'WWW-Authenticate': CHALLENGE },
    );
  }
  const parsed = bearer ? parseKey(bearer[1]!) : undefined;
  if (!parsed) throw invalid();
  const row = await loadKey(parsed.prefix);
  // compare against a dummy hash when the prefix is unknown, so timing does not tell which prefixes exist
  const matches = timingSafeEqual(hashSecret(parsed.secret), row ? Buffer.from(row.secretHash) : DUMMY_HASH);
  if (!row || !matches || row.tier !== parsed.tier) {
    if (row)
      onKnownKeyFailure?.({
        accountId: row.accountId,
        prefix: row.prefix,
        reason: matches ? 'wrong_tier' : 'wrong_secret',
      });
    throw invalid();
  }
  if (row.revokedAt) {
    onKnownKeyFailure?.({ accountId: row.accountId, prefix: row.prefix, reason: 'revoked' });
    throw new AppError('API_KEY_REVOKED', 'This API key has been revoked; create a new key.', {}, INVALID_TOKEN);
  }
  lastUse.touch(row.id);
  return {
    keyId: row.id,
    accountId: row.accountId,
    accountName: row.accountName,
    prefix: row.prefix,
    tier: parsed.tier,
    accountTier: accountTierOf(row.accountPlan, { tier: parsed.tier, createdBy: row.createdBy }),
    vouched: row.accountVouched,
  };
}
