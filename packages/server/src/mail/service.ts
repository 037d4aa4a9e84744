import { notificationPreferences, setNotificationPreferences } from '../accounts/member-store.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { queueMails, type OutgoingMail } from './outbox.ts';
import type { BodySealer } from './seal.ts';
import { emailVerified } from './store.ts';
import { templates } from './templates.ts';

type MailMode = 'smtp' | 'catcher' | 'off';
export type MailService = ReturnType<typeof createMailService>;

/** What /healthz says of a deployment that sends no mail (docs/operations.md, "Mail"). */
export const MAIL_OFF_REASON =
  'SMTP_URL is not set: no password reset, address confirmation, invitation or notification mail is sent';

/**
 * Mail as the rest of the service asks for it: queued in the caller's transaction (or one of its own for the sign-in
 * mails), sent by the worker. With mail off nothing is queued, and callers hand links over another way.
 */
export function createMailService(deps: { db: Db; clock: Clock; log: Logger; mode: MailMode; sealer: BodySealer }) {
  const on = deps.mode !== 'off';
  const now = () => new Date(deps.clock.now());
  const queue = async (db: Db, mails: OutgoingMail[]): Promise<number> =>
    on ? queueMails(db, mails, now(), deps.sealer) : 0;
  const alone = (mail: OutgoingMail) => inTransaction(deps.db, (tx) => queue(tx, [mail]));
  return {
    on,
    queue,
    /** better-auth's reset mail: only to an address that has a user (it answers the same either way). */
    async resetPassword(to: string, url: string): Promise<void> {
      await alone({ kind: 'reset-password', to, accountId: null, composed: templates.resetPassword(url) });
    },
    async verifyEmail(to: string, url: string): Promise<void> {
      await alone({ kind: 'verify-email', to, accountId: null, composed: templates.verifyEmail(url) });
    },
    /** Open sign-up with an address that has a user: the answer was as for a new one, the owner is told instead. */
    async signUpAttempt(to: string, url: string): Promise<void> {
      await alone({ kind: 'sign-up-attempt', to, accountId: null, composed: templates.signUpAttempt(url) });
    },
    /** An invitation into an account (accounts/invitations.ts), in its transaction; whether it was queued. */
    async memberInvitation(
      tx: Db,
      to: string,
      invitation: { accountId: string; accountName: string; role: string; url: string; expiresAt: string },
    ): Promise<boolean> {
      const { accountId, ...words } = invitation;
      return (await queue(tx, [{ kind: 'invitation', to, accountId, composed: templates.invitation(words) }])) === 1;
    },
    /** An invitation onto the operator's support team, in its transaction; whether it was queued. */
    async supportInvitation(tx: Db, to: string, invitation: { url: string; expiresAt: string }): Promise<boolean> {
      const composed = templates.supportInvitation(invitation);
      return (await queue(tx, [{ kind: 'invitation', to, accountId: null, composed }])) === 1;
    },
    emailVerified: (userId: string) => emailVerified(deps.db, userId),
    preferences: (accountId: string, userId: string) => notificationPreferences(deps.db, accountId, userId),
    async setPreferences(accountId: string, userId: string, prefs: { quota: boolean; webhooks: boolean }) {
      await setNotificationPreferences(deps.db, accountId, userId, prefs);
      return prefs;
    },
  };
}
