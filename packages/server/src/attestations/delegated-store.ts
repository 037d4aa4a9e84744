import type { Hex } from 'viem';
import type { Db } from '../db/database.ts';
import { inOrder, pendingValues, type PendingAttestation } from './pending-store.ts';
import type { AttestationOrigin } from './states.ts';

/** What a delegated on-chain request keeps for the relayer besides the attestation: the signed request's parts. */
export interface StoredDelegation {
  signature: { v: number; r: Hex; s: Hex };
  /** Unix seconds, decimal; '0' for none. */
  deadline: string;
}

/** The mark of an off-chain attestation a customer attester signed (its signature is in its package). */
const OFFCHAIN_DELEGATION = { mode: 'offchain' } as const;

/** A delegated on-chain item as its transaction carries it, in nonce order. */
export interface DelegatedItem {
  id: string;
  attester: Hex;
  type: AttestationOrigin;
  contentHash: Hex;
  /** The on-chain attestation it derives from, as signed; null for none. */
  refUid: Hex | null;
  nonce: string;
  delegation: StoredDelegation;
}

/** Stores delegated on-chain attestations waiting for the relayer, each with its signed request; ids in order. */
export async function insertDelegatedPending(
  db: Db,
  rows: Array<PendingAttestation & { delegation: StoredDelegation; nonce: string }>,
): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await db
    .insertInto('attestations')
    .values(
      rows.map((row) => ({
        ...pendingValues(row),
        delegation: JSON.stringify(row.delegation),
        delegationNonce: row.nonce,
      })),
    )
    .returning('id')
    .execute();
  return inOrder(inserted);
}

/** Marks off-chain attestations as signed by a customer attester (in the transaction that inserted them). */
export async function markOffchainDelegated(db: Db, uids: string[]): Promise<void> {
  await db
    .updateTable('attestations')
    .set({ delegation: JSON.stringify(OFFCHAIN_DELEGATION) })
    .where((eb) => eb('uid', '=', eb.fn.any(eb.val(uids))))
    .execute();
}

/** The highest nonce of this attester's requests the service holds (pending or mined); null when none. */
export async function highestHeldNonce(db: Db, chainId: number, attester: string): Promise<bigint | null> {
  const row = await db
    .selectFrom('attestations')
    .select((eb) => eb.fn.max('delegationNonce').as('nonce'))
    .where('chainId', '=', chainId)
    .where('attester', '=', attester)
    .where('delegationNonce', 'is not', null)
    .where('status', '<>', 'failed')
    .executeTakeFirst();
  return row?.nonce == null ? null : BigInt(row.nonce);
}

/** The uids among these that are stored already (a replayed off-chain package). */
export async function existingUids(db: Db, uids: string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('attestations')
    .select('uid')
    .where((eb) => eb('uid', '=', eb.fn.any(eb.val(uids))))
    .execute();
  return new Set(rows.map((row) => row.uid!));
}

/**
 * Claims the next delegated on-chain items for one transaction: the oldest waiting item's attester, then its waiting
 * items in nonce order (= id order) within `maxItems` and the gas budget, never splitting a batch; SKIP LOCKED as the
 * relayer's own claim. One attester per transaction keeps EAS's nonce order and the Attested logs in id order; one
 * transaction in flight per attester, since the gas of the next is estimated against the chain's current nonce.
 */
export async function claimDelegated(
  db: Db,
  limit: {
    items: number;
    gas: bigint | undefined;
    baseGas: bigint;
    gasOf(type: AttestationOrigin): bigint;
    /** What a refUID adds to an item (its storage word). */
    refGas: bigint;
  },
  open: (estimatedGas: bigint) => Promise<string | undefined>,
): Promise<{ journalId: string; count: number } | undefined> {
  const first = await db
    .selectFrom('attestations as a')
    .select('a.attester')
    .where('a.delegation', 'is not', null)
    .where('a.status', '=', 'pending')
    .where('a.relayTxId', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('attestations as f')
            .select((f) => f.lit(1).as('one'))
            .where('f.delegation', 'is not', null)
            .where('f.status', '=', 'pending')
            .where('f.relayTxId', 'is not', null)
            .whereRef('f.attester', '=', 'a.attester')
            .whereRef('f.chainId', '=', 'a.chainId'),
        ),
      ),
    )
    .orderBy('a.id')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  if (first === undefined) return undefined;
  const rows = await db
    .selectFrom('attestations')
    .select(['id', 'batchId', 'type', 'refUid'])
    .where('delegation', 'is not', null)
    .where('status', '=', 'pending')
    .where('relayTxId', 'is', null)
    .where('attester', '=', first.attester)
    .orderBy('attestations.id')
    .limit(limit.items * 2)
    .forUpdate()
    .skipLocked()
    .$narrowType<{ type: AttestationOrigin }>()
    .execute();
  const chosen: string[] = [];
  let gas = limit.baseGas;
  for (let i = 0; i < rows.length;) {
    // a batch's items are consecutive here (one attester, inserted together): take all of them or stop
    let end = i + 1;
    while (end < rows.length && rows[i]!.batchId && rows[end]!.batchId === rows[i]!.batchId) end++;
    const group = rows.slice(i, end);
    const groupGas = group.reduce(
      (sum, row) => sum + limit.gasOf(row.type) + (row.refUid === null ? 0n : limit.refGas),
      0n,
    );
    const full = chosen.length + group.length > limit.items || (limit.gas !== undefined && gas + groupGas > limit.gas);
    if (chosen.length > 0 && full) break;
    chosen.push(...group.map((row) => row.id));
    gas += groupGas;
    i = end;
  }
  const journalId = await open(gas);
  if (journalId === undefined) return undefined;
  await db
    .updateTable('attestations')
    .set({ relayTxId: journalId })
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(chosen))))
    .execute();
  return { journalId, count: chosen.length };
}

/** The delegated items a journal entry carries, in nonce order; empty for a transaction of the relayer's own items. */
export async function delegatedItemsOf(db: Db, journalId: string): Promise<DelegatedItem[]> {
  return db
    .selectFrom('attestations')
    .select(['id', 'attester', 'type', 'contentHash', 'refUid', 'delegationNonce as nonce', 'delegation'])
    .where('relayTxId', '=', journalId)
    .where('delegation', 'is not', null)
    .orderBy('attestations.id')
    .$castTo<DelegatedItem>()
    .execute();
}
