import { getAddress, type Hex, type PublicClient } from 'viem';
import { EAS_ARTIFACT } from '../chain/eas-artifacts.ts';
import { SCHEMA_UID, type DelegatedDomain } from '@attestation-service/protocol';
import { lockAttesters } from '../attesters/store.ts';
import type { Clock } from '../clock.ts';
import type { AuditFields } from '../audit/chain.ts';
import { appendAuditEntries } from '../audit/append.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { IdempotencyClaim } from '../idempotency/service.ts';
import { AppError, invalidField, notFound } from '../errors.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import {
  existingUids,
  highestHeldNonce,
  insertDelegatedPending,
  markOffchainDelegated,
  type StoredDelegation,
} from './delegated-store.ts';
import { assertDeadline, verifyDelegatedRequest } from './delegated.ts';
import { emitAttestationEvents } from './events.ts';
import type { PreparedAttestation } from './prepare.ts';
import type { PendingAttestation } from './pending-store.ts';
import { insertAttestations, type NewAttestation } from './store.ts';

function notRegistered(address: string, path: string): AppError {
  return new AppError(
    'ATTESTER_NOT_REGISTERED',
    `${address} is not an attester of this account: register it first (POST /v1/attesters/challenges, then POST /v1/attesters).`,
    { path, attester: address },
  );
}

/** Where an item's delegation is named in errors: `delegation` alone, `attestations.3.delegation` in a batch. */
const pathOf = (item: { batchIndex?: number | undefined }) =>
  item.batchIndex === undefined ? 'delegation' : `attestations.${item.batchIndex}.delegation`;

interface DelegationDeps {
  db: Db;
  clock: Clock;
  domain: DelegatedDomain;
  serviceAttester: Hex;
  verifyBaseUrl: string;
  /** The attester's nonce on the chain (EAS `getNonce`). */
  chainNonce(address: Hex): Promise<bigint>;
}

/**
 * Customer attesters' signatures on the way in (docs/decisions.md, "Customer attesters"): every signed request is
 * checked as EAS will check it, its address registered to the caller's account (locked until the transaction ends, so
 * a removal and nonces do not race), its nonce the attester's next one.
 */
export function createDelegationService(deps: DelegationDeps) {
  return {
    /**
     * Off-chain rows, in the caller's transaction: the customers' ones (signer not the service) need their address
     * registered to the account and a uid not stored yet (a replayed package); all are inserted, theirs marked.
     */
    insertOffchain: (tx: Db, auth: AuthenticatedKey, rows: NewAttestation[], paths: string[]) =>
      insertOffchain(deps, tx, auth, rows, paths),

    /**
     * One customer's off-chain attestation in a transaction of its own (not the group commit: its checks may refuse
     * it): the row, its mark, its Idempotency-Key response, its event and its audit entry.
     */
    writeOffchain: (auth: AuthenticatedKey, write: OffchainWrite) => writeOffchain(deps, auth, write),

    /** The nonce the attester's next request must be signed for: the chain's, or one past the last the service holds. */
    nextNonce: (auth: AuthenticatedKey, raw: string) => signingNonce(deps, auth, raw),

    /**
     * A request's delegated on-chain items, checked before any transaction: one attester, every item delegated,
     * each signature EAS's. The rest (registration, deadline, nonces) is checked in `stage`, under the locks.
     */
    verify: (items: PreparedAttestation[]) => verifyDelegated(deps.domain, items),

    /** In the caller's transaction: checks registration, deadlines and nonces, then stores the items pending. */
    stage: (tx: Db, auth: AuthenticatedKey, items: VerifiedItem[], rows: PendingAttestation[]) =>
      stageDelegated(deps, tx, auth, items, rows),
  };
}

type VerifiedItem = PreparedAttestation & { verified: Verified };

interface OffchainWrite {
  row: NewAttestation;
  audit: AuditFields;
  idempotency?: IdempotencyClaim | undefined;
  response: unknown;
}

/** The attester's next nonce: the chain's, or one past the highest the service holds. */
async function nextNonce(deps: DelegationDeps, tx: Db, address: Hex): Promise<bigint> {
  const [onChain, held] = await Promise.all([
    deps.chainNonce(address),
    highestHeldNonce(tx, deps.domain.chainId, address),
  ]);
  return held === null || onChain > held ? onChain : held + 1n;
}

/** Locks the items' attesters of the account; ATTESTER_NOT_REGISTERED for the first that is not one. */
async function assertRegistered(tx: Db, auth: AuthenticatedKey, items: Array<{ address: Hex; path: string }>) {
  const held = await lockAttesters(tx, auth.accountId, [...new Set(items.map((i) => i.address.toLowerCase()))]);
  const stranger = items.find((i) => !held.has(i.address.toLowerCase()));
  if (stranger) throw notRegistered(stranger.address, stranger.path);
}

/** The service's insertOffchain: customers' rows checked (registered, not stored yet), all inserted, theirs marked. */
async function insertOffchain(
  deps: DelegationDeps,
  tx: Db,
  auth: AuthenticatedKey,
  rows: NewAttestation[],
  paths: string[],
) {
  const customers = rows
    .map((row, i) => ({ row, path: paths[i]! }))
    .filter(({ row }) => row.attester !== deps.serviceAttester);
  if (customers.length > 0) {
    await assertRegistered(
      tx,
      auth,
      customers.map(({ row, path }) => ({ address: row.attester as Hex, path: `${path}.attester` })),
    );
    const seen = await existingUids(
      tx,
      customers.map(({ row }) => row.uid!),
    );
    const replayed = customers.find(({ row }) => seen.has(row.uid!));
    if (replayed) throw alreadyStored(replayed.row.uid!, replayed.path);
  }
  await insertAttestations(tx, rows).catch((error: unknown) => {
    // two copies of one package at the same moment: the second finds the first's uid here
    const e = error as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'attestations_uid_key')
      throw alreadyStored(customers[0]?.row.uid ?? rows[0]!.uid!, paths[0]!);
    throw error;
  });
  if (customers.length > 0)
    await markOffchainDelegated(
      tx,
      customers.map(({ row }) => row.uid!),
    );
}

/** The service's writeOffchain: one customer's off-chain attestation and what goes with it, in one transaction. */
async function writeOffchain(deps: DelegationDeps, auth: AuthenticatedKey, write: OffchainWrite): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    await insertOffchain(deps, tx, auth, [write.row], ['delegation']);
    await write.idempotency?.complete(tx, write.response);
    await emitAttestationEvents(
      tx,
      'attestation.created',
      [{ accountId: write.row.accountId, uid: write.row.uid! }],
      deps.verifyBaseUrl,
      write.row.createdAt,
    );
    await appendAuditEntries(tx, [write.audit]);
  });
  write.idempotency?.markCompleted();
}

/** The service's nextNonce: the attester's next nonce with what to sign it for; NOT_FOUND when not the account's. */
async function signingNonce(deps: DelegationDeps, auth: AuthenticatedKey, raw: string) {
  const { db, domain } = deps;
  const address = getAddress(raw);
  const held = await lockAttesters(db, auth.accountId, [address.toLowerCase()]);
  if (!held.has(address.toLowerCase())) throw notFound(`Attester ${address}`);
  return {
    address,
    nonce: String(await nextNonce(deps, db, address)),
    signing: {
      chainId: domain.chainId,
      eas: domain.verifyingContract,
      easVersion: domain.version,
      schemaUid: SCHEMA_UID,
    },
  };
}

/** The service's verify: one attester for the batch, every on-chain item delegated, each signature EAS's. */
async function verifyDelegated(domain: DelegatedDomain, items: PreparedAttestation[]): Promise<VerifiedItem[]> {
  const delegated = items.filter((item) => item.delegation);
  if (delegated.length === 0) return [];
  const stray = items.find((item) => !item.delegation);
  if (stray)
    throw invalidField(
      `attestations.${stray.batchIndex}.delegation`,
      "is required: a batch's on-chain items are all signed by one attester or none (EAS cannot mix them in one transaction)",
    );
  const attester = getAddress(delegated[0]!.delegation!.attester);
  const other = delegated.find((item) => getAddress(item.delegation!.attester) !== attester);
  if (other) throw invalidField(`${pathOf(other)}.attester`, `must be ${attester}, as for the batch's other items`);
  return Promise.all(
    delegated.map(async (item) => ({
      ...item,
      verified: await verifyDelegatedRequest(domain, item, item.delegation!, pathOf(item)),
    })),
  );
}

/** The service's stage: registration, deadlines and nonces checked under the locks, then the items stored. */
async function stageDelegated(
  deps: DelegationDeps,
  tx: Db,
  auth: AuthenticatedKey,
  items: VerifiedItem[],
  rows: PendingAttestation[],
): Promise<string[]> {
  const address = items[0]!.verified.attester;
  await assertRegistered(tx, auth, [{ address, path: `${pathOf(items[0]!)}.attester` }]);
  const nowSeconds = Math.floor(deps.clock.now() / 1000);
  for (const item of items) assertDeadline(item.verified.deadline, nowSeconds, `${pathOf(item)}.deadline`);
  let expected = await nextNonce(deps, tx, address);
  for (const item of items) {
    if (BigInt(item.verified.nonce) !== expected)
      throw new AppError(
        'INVALID_NONCE',
        `${pathOf(item)}.nonce is ${item.verified.nonce}, but ${address}'s next nonce is ${expected}: a replayed or out-of-order request. Sign again with the nonce from GET /v1/attesters/${address}/nonce.`,
        { attester: address, expected: String(expected), given: item.verified.nonce },
      );
    expected++;
  }
  return insertDelegatedPending(
    tx,
    rows.map((row, i) => {
      const { signature, deadline, nonce } = items[i]!.verified;
      const delegation: StoredDelegation = { signature, deadline };
      return { ...row, attester: address, delegation, nonce };
    }),
  );
}

/** EAS `getNonce(address)` on the chain; a chain that does not answer is 503 CHAIN_UNAVAILABLE (nothing changed). */
export function easNonceReader(client: PublicClient, eas: Hex): (address: Hex) => Promise<bigint> {
  return async (address) => {
    try {
      return (await client.readContract({
        address: eas,
        abi: EAS_ARTIFACT.abi,
        functionName: 'getNonce',
        args: [address],
      })) as bigint;
    } catch {
      throw new AppError(
        'CHAIN_UNAVAILABLE',
        "The chain did not answer for the attester's nonce; nothing was charged. Retry later.",
        {},
        { 'Retry-After': '10' },
      );
    }
  };
}

/** A signed off-chain package that is stored already: the same signature twice is one attestation. */
function alreadyStored(uid: string, path: string): AppError {
  return new AppError(
    'ALREADY_EXISTS',
    `This signed off-chain attestation is stored already as ${uid} (${path}): sign a new one (new salt) to attest again.`,
    { id: uid },
  );
}

type Verified = Awaited<ReturnType<typeof verifyDelegatedRequest>>;

export type DelegationService = ReturnType<typeof createDelegationService>;
