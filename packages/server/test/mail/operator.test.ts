import { randomUUID } from 'node:crypto';
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
      const notices = await service.db
        .selectFrom('mailNotices')
        .select('period')
        .where('scope', '=', 'operator')
        .execute();
      expect(notices).toEqual([{ period: new Date().toISOString().slice(0, 10) }]);
    } finally {
      await service.stop();
    }
  });

  it('keeps a mail waiting to be sent sealed: a dump of the outbox holds no link in clear', async () => {
    const service = await startTestService({ worker: false, env: { SMTP_URL: inbox.smtpUrl } });
    try {
      const name = `sealed-${Date.now()}`;
      const account = await service.db
        .insertInto('accounts')
        .values({ id: randomUUID(), name, nameKey: name.toLowerCase() })
        .returning('id')
        .executeTakeFirstOrThrow();
      const link = await service.services.invitations.inviteMember({
        accountId: account.id,
        email: 'sealed@example.com',
        role: 'viewer',
        actor: null,
        origin: null,
      });
      expect(link.mailed).toBe(true);
      const token = link.url.slice(link.url.lastIndexOf('/') + 1);
      const rows = await service.db
        .selectFrom('mailOutbox')
        .select(['textBody', 'htmlBody'])
        .where('recipient', '=', 'sealed@example.com')
        .execute();
      expect(rows).toHaveLength(1);
      for (const part of [rows[0]!.textBody, rows[0]!.htmlBody]) {
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
