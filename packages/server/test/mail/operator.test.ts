import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService } from '../support/service.ts';
import { startInbox, type Inbox } from './inbox.ts';

let inbox: Inbox;
beforeAll(async () => {
  inbox = await startInbox();
});
afterAll(() => inbox?.stop());

describe("the operator's mail", () => {
  it('tells OPERATOR_EMAIL once a day that the relayer balance is below the minimum', async () => {
    const service = await startTestService({
      env: { SMTP_URL: inbox.smtpUrl, OPERATOR_EMAIL: 'ops@service.test', RELAYER_MIN_BALANCE_ETH: '1000000000' },
    });
    try {
      const mail = await inbox.waitFor((m) => m.to === 'ops@service.test');
      expect(mail.subject).toBe('The relayer balance is low');
      expect(mail.text).toContain(`The relayer ${service.infrastructure.chain.account.address} holds`);
      expect(mail.text).toMatch(/holds [\d.]+ ETH, below the minimum of 1000000000 ETH/);
      const notices = await service.sql.query(`SELECT period FROM mail_notices WHERE scope = 'operator'`);
      expect(notices).toEqual([{ period: new Date().toISOString().slice(0, 10) }]);
    } finally {
      await service.stop();
    }
  });

  it('keeps a mail waiting to be sent sealed: a dump of the outbox holds no link in clear', async () => {
    const service = await startTestService({ worker: false, env: { SMTP_URL: inbox.smtpUrl } });
    try {
      const [account] = await service.sql.query<{ id: string }>(
        `INSERT INTO accounts (id, name, name_key) VALUES (gen_random_uuid(), $1, lower($1)) RETURNING id`,
        [`sealed-${Date.now()}`],
      );
      const link = await service.services.dashboard.invitations.inviteMember({
        accountId: account!.id,
        email: 'sealed@example.com',
        role: 'viewer',
        actor: null,
        origin: null,
      });
      expect(link.mailed).toBe(true);
      const token = link.url.slice(link.url.lastIndexOf('/') + 1);
      const rows = await service.sql.query<{ text_body: string; html_body: string }>(
        `SELECT text_body, html_body FROM mail_outbox WHERE recipient = 'sealed@example.com'`,
      );
      expect(rows).toHaveLength(1);
      for (const part of [rows[0]!.text_body, rows[0]!.html_body]) {
        expect(part).toMatch(/^m1\./);
        expect(part).not.toContain(token);
      }
    } finally {
      await service.stop();
    }
  });

  it('says on /healthz, without degrading it, that a production deployment without SMTP_URL sends no mail', async () => {
    const service = await startTestService({ worker: false });
    try {
      const health = await call(service.url, 'GET', '/healthz');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({
        status: 'ok',
        reasons: { mail: expect.stringMatching(/^SMTP_URL is not set: no password reset/) },
      });
    } finally {
      await service.stop();
    }
  });
});
