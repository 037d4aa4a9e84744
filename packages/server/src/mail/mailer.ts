import nodemailer from 'nodemailer';
import type { Composed } from './compose.ts';

/** Sends one mail over SMTP; `close` ends its pooled connections. */
export interface Mailer {
  send(to: string, composed: Composed): Promise<void>;
  close(): void;
}

/**
 * nodemailer on an SMTP URL (smtp:// upgrades with STARTTLS when offered; smtps:// is TLS from the start), with
 * bounded waits: a stalled server fails the attempt, and the job retries later.
 */
export function createMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl, { from });
  Object.assign(transport.options, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    async send(to, { subject, text, html }) {
      await transport.sendMail({ to, subject, text, html });
    },
    close: () => transport.close(),
  };
}
