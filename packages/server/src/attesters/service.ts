import { randomUUID } from 'node:crypto';
import type { AuditAction } from '@attestation-service/protocol';
import { getAddress, recoverMessageAddress, type Hex } from 'viem';
import { auditEntry, type MemberActor } from '../audit/entry.ts';
import { appendAudit } from '../audit/append.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import type { GatedRequest } from '../idempotency/service.ts';
import type { AuthenticatedKey } from '../keys/service.ts';
import { assertRoomForChallenge } from './challenge-cap.ts';
import type { AttesterView } from './contracts.ts';
import {
  insertAttester,
  insertChallenge,
  isAddressTaken,
  listAttesters,
  liveAttester,
  pruneChallenges,
  removeAttester,
  useChallenge,
  type AttesterRow,
} from './store.ts';

/**
 * Who manages attesters: an API key (REST), or a dashboard member acting in an account; the audit entry names
 * whichever acted.
 */
type AttesterCaller = Pick<AuthenticatedKey, 'accountId' | 'accountName'> & {
  prefix?: string;
  member?: MemberActor;
};

/** How long a challenge may be signed and handed back: long enough for a hardware wallet, short enough to be fresh. */
export const CHALLENGE_TTL_MS = 10 * 60 * 1000;

/** The text an address signs (EIP-191) to be registered: says what it grants, to which account, until when. */
function challengeMessage(c: {
  accountName: string;
  address: string;
  chainId: number;
  id: string;
  issuedAt: Date;
  expiresAt: Date;
}): string {
  return [
    'Attestation Service: register an attester',
    '',
    `I control ${c.address} and allow the account "${c.accountName}" to publish attestations signed by it.`,
    '',
    `Address: ${c.address}`,
    `Account: ${c.accountName}`,
    `Chain ID: ${c.chainId}`,
    `Challenge: ${c.id}`,
    `Issued at: ${c.issuedAt.toISOString()}`,
    `Expires at: ${c.expiresAt.toISOString()}`,
  ].join('\n');
}

function view(row: Pick<AttesterRow, 'address' | 'createdAt'>): AttesterView {
  return { address: getAddress(row.address), createdAt: row.createdAt.toISOString() };
}

function taken(address: string): AppError {
  return new AppError(
    'ATTESTER_TAKEN',
    `${address} is registered to another account; an address signs for one account at most.`,
  );
}

/** Customer attesters: the challenge, registration by its signature, the list, removal; each change audited. */
export function createAttesterService(deps: { db: Db; clock: Clock; chainId: number }) {
  const { db, clock } = deps;
  const audit = (auth: AttesterCaller, request: GatedRequest, at: Date, action: AuditAction, address: string) =>
    auditEntry({
      accountId: auth.accountId,
      actorKeyPrefix: auth.prefix ?? null,
      actorMember: auth.member ?? null,
      at,
      action,
      resource: `attester:${address}`,
      details: { address },
      origin: request,
    });

  return {
    /** A fresh challenge for this account and address: sign its message with the address's key within 10 minutes. */
    async challenge(auth: AttesterCaller, rawAddress: string) {
      const address = getAddress(rawAddress);
      const owner = await liveAttester(db, address.toLowerCase());
      if (owner && owner.accountId !== auth.accountId) throw taken(address);
      const now = new Date(clock.now());
      const id = randomUUID();
      const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
      const message = challengeMessage({
        accountName: auth.accountName,
        address,
        chainId: deps.chainId,
        id,
        issuedAt: now,
        expiresAt,
      });
      await inTransaction(db, async (tx) => {
        await pruneChallenges(tx, new Date(now.getTime() - 24 * 60 * 60 * 1000));
        await assertRoomForChallenge(tx, auth.accountId, now, CHALLENGE_TTL_MS);
        await insertChallenge(tx, {
          id,
          accountId: auth.accountId,
          address: address.toLowerCase(),
          message,
          createdAt: now,
          expiresAt,
        });
      });
      return { id, address, message, expiresAt: expiresAt.toISOString() };
    },

    /**
     * Registers the challenge's address once its signature recovers to it. The challenge is used up whatever the
     * outcome (committed before a refusal is thrown), so each one is tried once.
     */
    async register(auth: AttesterCaller, input: { challengeId: string; signature: string }, request: GatedRequest) {
      const now = new Date(clock.now());
      const outcome = await inTransaction(db, async (tx) => {
        const challenge = await useChallenge(tx, input.challengeId, auth.accountId, now);
        if (!challenge) return { refused: challengeInvalid() };
        const address = getAddress(challenge.address);
        const signer = await recoverMessageAddress({
          message: challenge.message,
          signature: input.signature as Hex,
        }).catch(() => undefined);
        if (signer !== address) return { refused: invalidChallengeSignature(address) };
        const owner = await liveAttester(tx, challenge.address);
        if (owner && owner.accountId !== auth.accountId) return { refused: taken(address) };
        if (owner) {
          await request.idempotency?.complete(tx, view(owner));
          return { registered: view(owner) };
        }
        const row = { id: randomUUID(), accountId: auth.accountId, address: challenge.address, createdAt: now };
        await insertAttester(tx, row);
        await appendAudit(tx, audit(auth, request, now, 'attester.registered', address));
        const created = view(row);
        await request.idempotency?.complete(tx, created);
        return { registered: created };
      }).catch((error: unknown) => {
        // the unique index is the backstop when two accounts register one address at the same moment
        if (isAddressTaken(error)) throw taken('This address');
        throw error;
      });
      if ('refused' in outcome) throw outcome.refused;
      request.idempotency?.markCompleted();
      return outcome.registered;
    },

    async list(auth: Pick<AttesterCaller, 'accountId'>): Promise<{ data: AttesterView[] }> {
      return { data: (await listAttesters(db, auth.accountId)).map(view) };
    },

    /** Removes one of the account's addresses: attestations it signs from now on are refused; made ones stand. */
    async remove(auth: AttesterCaller, rawAddress: string, request: GatedRequest): Promise<void> {
      const address = getAddress(rawAddress);
      const now = new Date(clock.now());
      await inTransaction(db, async (tx) => {
        if (!(await removeAttester(tx, auth.accountId, address.toLowerCase(), now)))
          throw notFound(`Attester ${address}`);
        await appendAudit(tx, audit(auth, request, now, 'attester.removed', address));
        await request.idempotency?.complete(tx, undefined);
      });
      request.idempotency?.markCompleted();
    },
  };
}

function challengeInvalid(): AppError {
  return new AppError(
    'CHALLENGE_INVALID',
    'This challenge is unknown, already used or expired; ask for a new one (POST /v1/attesters/challenges).',
  );
}

function invalidChallengeSignature(address: string): AppError {
  return new AppError(
    'INVALID_SIGNATURE',
    `The signature is not ${address}'s over this challenge's message (EIP-191 personal_sign of the message as given). The challenge is used up; ask for a new one.`,
  );
}

export type AttesterService = ReturnType<typeof createAttesterService>;
