import type { Db } from '../db/database.ts';
import { idCursor, pageOf } from '../http/cursor.ts';
import { normalizeContentHash } from '@attestation-service/protocol';
import type { AccountListInput, AccountListPage } from './dashboard-contracts.ts';
import { accountPage, type AccountPageQuery } from './dashboard-store.ts';

/** An account's attestations as its dashboard lists them: the members' view, not the public API's. */
export interface AccountAttestations {
  /** One page, newest first, with its filters. */
  list(accountId: string, input: AccountListInput): Promise<AccountListPage>;
}

export function createAccountAttestations(deps: { db: Db; verifyBaseUrl: string }): AccountAttestations {
  const { db, verifyBaseUrl } = deps;
  return {
    async list(accountId, input) {
      const beforeId = input.cursor === undefined ? undefined : idCursor.decode(input.cursor);
      const query: AccountPageQuery = {
        accountId,
        type: input.type,
        mode: input.mode,
        revoked: input.revoked,
        contentHash: input.contentHash === undefined ? undefined : normalizeContentHash(input.contentHash),
        beforeId,
        limit: input.limit + 1,
      };
      const page = pageOf(await accountPage(db, query), input.limit, (last) => idCursor.encode(last.id));
      return {
        data: page.rows.map((row) => ({
          uid: row.uid as `0x${string}`,
          type: row.type,
          mode: row.mode,
          status: row.status,
          contentHash: row.contentHash,
          contentType: row.contentType,
          txHash: row.txHash,
          createdAt: row.createdAt.toISOString(),
          revokedAt: row.revokedAt?.toISOString() ?? null,
          verifyUrl: `${verifyBaseUrl}/${row.uid}`,
        })),
        nextCursor: page.nextCursor,
      };
    },
  };
}
