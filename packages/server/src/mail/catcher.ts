import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, isPortFree } from '../system/ports.ts';
import { requireOptional } from '../system/optional.ts';

/** MailDev's usual inbox port: kept when free, so the printed address stays the same across restarts. */
const INBOX_PORT = 1080;

interface MailCatcher {
  smtpUrl: string;
  inboxUrl: string;
  stop(): Promise<void>;
}

/**
 * The development mail catcher (MailDev: SMTP plus a web inbox) on loopback, keeping its mails in DATA_DIR/mail: the
 * embedded default's stand-in for a real SMTP server, so development sends over the same path as production.
 */
export async function startMailCatcher(dataDir: string, opts: { anyPort?: boolean } = {}): Promise<MailCatcher> {
  requireOptional('maildev', 'SMTP_URL', 'the development mail catcher (MailDev)');
  const { MailDev } = await import('maildev');
  const smtp = await freePort();
  const web = !opts.anyPort && (await isPortFree(INBOX_PORT)) ? INBOX_PORT : await freePort();
  const mailDirectory = join(dataDir, 'mail');
  mkdirSync(mailDirectory, { recursive: true });
  const maildev = new MailDev({ smtp, web, ip: '127.0.0.1', webIp: '127.0.0.1', mailDirectory, silent: true });
  // MailDev's API announces itself with console.info whatever `silent` says; serve prints the address with the others
  const info = console.info;
  console.info = () => undefined;
  try {
    await maildev.start();
  } finally {
    console.info = info;
  }
  return {
    smtpUrl: `smtp://127.0.0.1:${smtp}`,
    inboxUrl: `http://localhost:${web}`,
    stop: () => maildev.stop(),
  };
}
