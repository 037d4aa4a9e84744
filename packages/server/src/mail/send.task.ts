import type { Task } from 'graphile-worker';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Mailer } from './mailer.ts';
import type { BodySealer } from './seal.ts';
import { markFailed, markSent, unsentMail } from './store.ts';

/** The SMTP server's refusal, short, without the message's text: enough to tell a wrong password from a full box. */
const reasonOf = (error: unknown): string => {
  const { responseCode, code } = error as { responseCode?: number; code?: string };
  return [code, responseCode].filter((v) => v !== undefined).join(' ') || describeError(error).type;
};

/**
 * The `mail.send` job: sends one queued mail and marks it sent. A failure is recorded and thrown, so graphile-worker
 * retries with its backoff (10 attempts over about a day); a crash between sending and marking sends it again.
 */
export function sendTask(deps: { db: Db; mailer: Mailer; sealer: BodySealer; clock: Clock; log: Logger }): Task {
  return async (payload) => {
    const id = (payload as { id?: unknown }).id;
    if (typeof id !== 'string') return;
    const { db } = deps;
    const mail = await unsentMail(db, id);
    if (!mail) return;
    const [text, html] = [deps.sealer.open(mail.text), deps.sealer.open(mail.html)];
    // sealed under a SERVICE_SECRET no longer given: nothing to send, and retrying will not change it
    if (text === undefined || html === undefined) {
      await markFailed(db, id, 'sealed under another SERVICE_SECRET');
      deps.log.error({ component: 'mail', mail: id, kind: mail.kind }, 'mail not sent: sealed under another secret');
      return;
    }
    try {
      await deps.mailer.send(mail.recipient, { subject: mail.subject, text, html });
    } catch (error) {
      const reason = reasonOf(error);
      await markFailed(db, id, reason);
      deps.log.warn({ component: 'mail', mail: id, kind: mail.kind, reason }, 'mail not sent; retrying later');
      throw new Error(`mail not sent: ${reason}`);
    }
    await markSent(db, id, new Date(deps.clock.now()));
    deps.log.info({ component: 'mail', mail: id, kind: mail.kind }, 'mail sent');
  };
}
