import { appendAudit } from '../audit/append.ts';
import { auditEntry, type MemberActor, type RequestOrigin } from '../audit/entry.ts';
import type { Db } from '../db/database.ts';
import { generateKey, hashSecret, type Tier } from './format.ts';
import { assertRoomForKey } from './key-cap.ts';
import { insertKey } from './store.ts';

/** A key just minted: the full key is here and nowhere else, ever (only its secret's hash is stored). */
interface Minted {
  key: string;
  prefix: string;
  createdAt: Date;
}

/**
 * Mints a key in the caller's transaction, for the operator's CLI (no `member`) or a dashboard member: refused past
 * the account's cap (checked under the account's lock), the secret stored as its hash, and the creation audited in
 * the same transaction, with the member as actor when one minted it.
 */
export async function mintKey(
  tx: Db,
  input: {
    accountId: string;
    tier: Tier;
    name?: string | undefined;
    at: Date;
    member?: MemberActor;
    origin?: RequestOrigin;
  },
): Promise<Minted> {
  const minted = generateKey(input.tier);
  await assertRoomForKey(tx, input.accountId);
  const row = await insertKey(tx, {
    accountId: input.accountId,
    prefix: minted.prefix,
    secretHash: hashSecret(minted.secret),
    tier: input.tier,
    name: input.name,
    createdBy: input.member?.userId ?? null,
    createdAt: input.at,
  });
  await appendAudit(
    tx,
    auditEntry({
      accountId: input.accountId,
      at: input.at,
      action: 'api_key.created',
      resource: `api_key:${minted.prefix}`,
      actorMember: input.member ?? null,
      origin: input.origin ?? null,
      details: {
        tier: input.tier,
        ...(input.name === undefined ? {} : { name: input.name }),
        via: input.member ? 'dashboard' : 'cli',
      },
    }),
  );
  return { key: minted.key, prefix: minted.prefix, createdAt: row.createdAt };
}
