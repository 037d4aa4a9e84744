import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { accountVouched } from './standing-store.ts';

/** Why an unconfirmed person is refused (as accepting a bound invitation says it), for the page to offer a new link. */
const EMAIL_UNCONFIRMED = 'EMAIL_NOT_VERIFIED';

/** The person a dashboard call comes from, as their session carries them. */
interface Caller {
  email: string;
  emailVerified: boolean;
}

function unconfirmed(email: string, what: string): AppError {
  return new AppError(
    'FORBIDDEN',
    `Confirm your email address first: ${what} needs a confirmed address. Open the link we mailed to ${email}, ` +
      'or send a new one from the Overview.',
    { reason: EMAIL_UNCONFIRMED },
  );
}

/**
 * Opening an account under open sign-up takes a confirmed address: without it, one sign-up with anyone's address
 * could open accounts (each with its own free on-chain quota) without end (docs/decisions.md, "Open sign-up").
 */
export function requireConfirmedAddress(caller: Caller, what: string): void {
  if (!caller.emailVerified) throw unconfirmed(caller.email, what);
}

/**
 * Minting a key or sending an invitation takes a confirmed address, or an account someone answerable stands behind
 * (the operator opened it, or an owner confirmed theirs): so the operator's setup link and a member an owner let in
 * need no mail, while an account nobody confirmed gets no keys. A confirmed caller costs no query.
 */
export function createStandingService(db: Db) {
  return {
    async require(caller: Caller, accountId: string, what: string): Promise<void> {
      if (caller.emailVerified || (await accountVouched(db, accountId))) return;
      throw unconfirmed(caller.email, what);
    },
  };
}

export type StandingService = ReturnType<typeof createStandingService>;
