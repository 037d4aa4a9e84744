import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownName } from '../../src/mail/shown-name.ts';
import { templates } from '../../src/mail/templates.ts';
import { createMember, startDashboardService, trpc } from '../dashboard/support.ts';
import type { TestService } from '../support/service.ts';
import { startInbox, type Inbox } from './inbox.ts';

const attack = 'Claim your refund at evil.example';
const base = 'https://attest.example.org';

describe("an account's name in mail", () => {
  it('never reaches a subject: each names the service by its host', () => {
    const mails = [
      templates.invitation({ accountName: attack, role: 'viewer', url: `${base}/dashboard/invite/t`, expiresAt: 'x' }),
      templates.quota({ accountName: attack, threshold: 80, used: 16, limit: 20, resetsAt: 'x', url: base }),
      templates.quota({ accountName: attack, threshold: 100, used: 20, limit: 20, resetsAt: 'x', url: base }),
      templates.deadDeliveries({ accountName: attack, subscriptions: [], more: 0, url: `${base}/dashboard/x` }),
    ];
    for (const mail of mails) {
      expect(mail.subject).not.toMatch(/refund|evil/i);
      expect(mail.subject).toContain('attest.example.org');
    }
    expect(mails[0]!.subject).toBe('Invitation to an account on attest.example.org');
  });

  it('is shown in a body as quoted data, its hosts defanged so no mail client links them', () => {
    const mail = templates.invitation({
      accountName: attack,
      role: 'viewer',
      url: `${base}/dashboard/invite/t`,
      expiresAt: 'x',
    });
    expect(mail.text).toContain('the account “Claim your refund at evil[.]example” on attest.example.org as viewer');
    expect(mail.text).not.toContain('evil.example');
    expect(mail.html).not.toContain('evil.example');
  });

  it('defangs addresses and schemes, and the HTML part escapes the name', () => {
    expect(shownName('Acme Inc.')).toBe('“Acme Inc.”');
    expect(shownName('www.evil.example')).toBe('“www[.]evil[.]example”');
    expect(shownName('pay@evil.example')).toBe('“pay[@]evil[.]example”');
    expect(shownName('https://evil')).toBe('“https[:]//evil”');
    const html = templates.quota({
      accountName: '<a href="https://evil.example">x</a>',
      threshold: 80,
      used: 16,
      limit: 20,
      resetsAt: 'x',
      url: base,
    }).html;
    expect(html).not.toContain('<a href="https://evil');
    expect(html).toContain('&lt;a href=&quot;https[:]//evil[.]example&quot;&gt;');
  });
});

describe('invitation mail: a daily cap per member and per account', () => {
  let inbox: Inbox;
  let service: TestService;
  beforeAll(async () => {
    inbox = await startInbox();
    service = await startDashboardService({
      env: { SMTP_URL: inbox.smtpUrl, INVITATIONS_PER_DAY_PER_MEMBER: '2', INVITATIONS_PER_DAY_PER_ACCOUNT: '3' },
    });
  });
  afterAll(async () => {
    await service?.stop();
    await inbox?.stop();
  });

  const invite = (owner: { cookie: string; accountId: string }, email: string) =>
    trpc(service, 'dashboard.members.invite', {
      cookie: owner.cookie,
      accountId: owner.accountId,
      mutation: true,
      input: { email, role: 'viewer' },
    });
  const invitations = async (accountId: string) =>
    (
      await service.db
        .selectFrom('invitations')
        .select('id')
        .where('accountId', '=', accountId)
        .where('createdBy', 'is not', null)
        .execute()
    ).length;

  it("refuses a member's third invitation of the day, then the account's fourth, with 429 RATE_LIMITED", async () => {
    const owner = await createMember(service, 'owner');
    const other = await createMember(service, 'owner', owner.accountId);
    const to = (n: number) => `invitee-${n}-${Date.now()}@example.com`;
    expect((await invite(owner, to(1))).status).toBe(200);
    expect((await invite(owner, to(2))).status).toBe(200);
    const member = await invite(owner, to(3));
    expect(member.status).toBe(429);
    expect(member.headers.get('retry-after')).toBeTruthy();
    expect(member.body.error.data).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 2, windowSeconds: 86_400, scope: 'key' },
    });
    expect(member.body.error.message).toContain('you may send 2 invitation mails a day');

    expect((await invite(other, to(4))).status).toBe(200);
    const account = await invite(other, to(5));
    expect(account.status).toBe(429);
    expect(account.body.error.data).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 3, windowSeconds: 86_400, scope: 'account' },
    });
    // a refused invitation leaves nothing behind: no row, no link, no mail
    expect(await invitations(owner.accountId)).toBe(3);
  });

  it('does not bind the operator: the CLI invites past it', async () => {
    const owner = await createMember(service, 'owner');
    for (let i = 0; i < 4; i++) await createMember(service, 'viewer', owner.accountId);
    const members = await service.db
      .selectFrom('members')
      .select('id')
      .where('accountId', '=', owner.accountId)
      .execute();
    expect(members).toHaveLength(5);
  });
});
