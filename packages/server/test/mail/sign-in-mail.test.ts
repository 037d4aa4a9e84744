import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIp, type TestService } from '../support/service.ts';
import {
  createMember,
  seedInvitation,
  signIn,
  signUp,
  startDashboardService,
  tokenOf,
  trpc,
} from '../dashboard/support.ts';
import { linkIn, startInbox, type Inbox } from './inbox.ts';

let inbox: Inbox;
let service: TestService;

beforeAll(async () => {
  inbox = await startInbox();
  service = await startDashboardService({
    worker: true,
    env: { SMTP_URL: inbox.smtpUrl, MAIL_FROM: 'Attestation Service <no-reply@service.test>' },
  });
});
afterAll(async () => {
  await service?.stop();
  await inbox?.stop();
});

/** A call to one of better-auth's endpoints, as the dashboard's page makes it. */
async function auth(path: string, body: unknown, cookie?: string) {
  const res = await fetch(`${service.url}/dashboard/api/auth${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: service.config.publicBaseUrl,
      'x-forwarded-for': randomIp(),
      ...(cookie ? { cookie } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as unknown };
}

const outboxTo = async (address: string) =>
  service.db.selectFrom('mailOutbox').select('id').where('recipient', '=', address.toLowerCase()).execute();

describe('mail for signing in, over a real SMTP server', () => {
  it('a member sets a new password from the mailed link; the old one and old sessions stop working', async () => {
    const member = await createMember(service, 'owner');
    expect(await auth('/request-password-reset', { email: member.email })).toMatchObject({ status: 200 });

    const mail = await inbox.waitFor((m) => m.to === member.email && /reset/i.test(m.subject));
    expect(mail.from).toBe('Attestation Service <no-reply@service.test>');
    const link = linkIn(mail.text, `${service.config.publicBaseUrl}/dashboard/reset-password?token=`);
    expect(mail.html).toContain(link.replaceAll('&', '&amp;'));
    const token = new URL(link).searchParams.get('token')!;

    const newPassword = 'a-brand-new-password-42';
    expect(await auth('/reset-password', { token, newPassword })).toMatchObject({ status: 200 });
    expect((await signIn(service, { email: member.email, password: member.password })).status).toBe(401);
    expect((await signIn(service, { email: member.email, password: newPassword })).status).toBe(200);
    expect((await trpc(service, 'dashboard.session.me', { cookie: member.cookie })).status).toBe(401);
    // the link works once
    expect((await auth('/reset-password', { token, newPassword: 'yet-another-password-1' })).status).toBe(400);
    // the sent mail's parts are not kept: the link was a credential
    const [row] = await service.db
      .selectFrom('mailOutbox')
      .select(['textBody', 'sentAt'])
      .where('recipient', '=', member.email)
      .where('kind', '=', 'reset-password')
      .execute();
    expect(row).toMatchObject({ textBody: '', sentAt: expect.any(Date) });
  });

  it('answers a reset for an unknown address exactly as for a known one, and mails nothing to it', async () => {
    const member = await createMember(service, 'viewer');
    const stranger = `nobody-${Date.now()}@example.com`;
    const unknown = await auth('/request-password-reset', { email: stranger });
    const known = await auth('/request-password-reset', { email: member.email });
    expect(unknown).toEqual(known);
    expect(unknown.status).toBe(200);

    await inbox.waitFor((m) => m.to === member.email && /reset/i.test(m.subject));
    expect(await outboxTo(stranger)).toEqual([]);
    expect((await inbox.all()).filter((m) => m.to === stranger)).toEqual([]);
  });

  it('confirms an address from the mailed link; an invitation bound to it waits until then', async () => {
    // someone signs up with the owner setup link (bound to no address): their address is not confirmed yet
    const setup = await seedInvitation(service, { accountId: null, email: null, role: 'owner', kind: 'setup' });
    const email = `confirm-${Date.now()}@example.com`;
    const up = await signUp(service, { email, password: 'pw-confirm-long-enough', name: 'Confirm' }, setup);
    expect(up.status).toBe(200);
    const status = () => trpc(service, 'dashboard.mail.status', { cookie: up.cookie });
    expect((await status()).body.result.data).toEqual({ mail: true, emailVerified: false });

    const owner = await createMember(service, 'owner');
    const invited = await trpc(service, 'dashboard.members.invite', {
      cookie: owner.cookie,
      accountId: owner.accountId,
      mutation: true,
      input: { email, role: 'developer' },
    });
    expect(invited.status).toBe(200);
    const token = tokenOf(invited.body.result.data.url);
    const accept = () =>
      trpc(service, 'dashboard.invitations.accept', { cookie: up.cookie, mutation: true, input: { token } });
    const refused = await accept();
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain(`Confirm ${email} first`);

    const mail = await inbox.waitFor((m) => m.to === email && /confirm/i.test(m.subject));
    const link = linkIn(mail.text, `${service.config.publicBaseUrl}/dashboard/api/auth/verify-email?token=`);
    const opened = await fetch(link, { redirect: 'manual', headers: { 'x-forwarded-for': randomIp() } });
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe(`${service.config.publicBaseUrl}/dashboard/verify-email`);
    expect((await status()).body.result.data).toEqual({ mail: true, emailVerified: true });
    expect((await accept()).status).toBe(200);
  });

  it('mails an invitation; signing up with its link confirms the address, with no second mail', async () => {
    const owner = await createMember(service, 'owner');
    const email = `invited-${Date.now()}@example.com`;
    const invited = await trpc(service, 'dashboard.members.invite', {
      cookie: owner.cookie,
      accountId: owner.accountId,
      mutation: true,
      input: { email, role: 'viewer' },
    });
    expect(invited.status).toBe(200);

    const mail = await inbox.waitFor((m) => m.to === email);
    expect(mail.subject).toBe(`Invitation to an account on ${new URL(service.config.publicBaseUrl).host}`);
    expect(mail.text).toContain(`the account “${owner.accountName}”`);
    const link = linkIn(mail.text, `${service.config.publicBaseUrl}/dashboard/invite/`);
    expect(link).toBe(invited.body.result.data.url);
    expect(mail.html).toContain(link);

    const up = await signUp(service, { email, password: 'pw-invited-long-enough', name: 'Invited' }, tokenOf(link));
    expect(up.status).toBe(200);
    const accepted = await trpc(service, 'dashboard.invitations.accept', {
      cookie: up.cookie,
      mutation: true,
      input: { token: tokenOf(link) },
    });
    expect(accepted.status).toBe(200);
    expect((await outboxTo(email)).length).toBe(1);
  });
});
