import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMailCatcher } from '../../src/mail/catcher.ts';

/** A mail as MailDev's REST API shows it. */
export interface CaughtMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
}

export interface Inbox {
  smtpUrl: string;
  /** Every mail received so far, oldest first. */
  all(): Promise<CaughtMail[]>;
  /** The first mail matching `match`, waiting for it (rejects after `timeoutMs`). */
  waitFor(match: (mail: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  stop(): Promise<void>;
}

/** A real SMTP server with an inbox (MailDev, as `serve` starts it in development) on free loopback ports. */
export async function startInbox(): Promise<Inbox> {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-'));
  const catcher = await startMailCatcher(dir, { anyPort: true });
  const all = async (): Promise<CaughtMail[]> => {
    const rows = (await (await fetch(`${catcher.inboxUrl}/api/email`)).json()) as Array<{
      to: Array<{ address: string }>;
      from: Array<{ address: string; name: string }>;
      subject: string;
      text: string;
      html: string;
    }>;
    return rows.map((r) => ({
      to: r.to.map((t) => t.address).join(', '),
      from: r.from.map((f) => (f.name ? `${f.name} <${f.address}>` : f.address)).join(', '),
      subject: r.subject,
      text: r.text,
      html: r.html,
    }));
  };
  return {
    smtpUrl: catcher.smtpUrl,
    all,
    async waitFor(match, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = (await all()).find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error('no such mail arrived');
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async stop() {
      await catcher.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first link in a mail's text that starts with `prefix`. */
export function linkIn(text: string, prefix: string): string {
  const found = text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!found) throw new Error(`no link starting with ${prefix} in: ${text}`);
  return found;
}
