import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, type TestService } from '../support/service.ts';
import { runCli } from '../support/cli.ts';
import { waitFor } from '../support/wait.ts';
import { createMember, startDashboardService, trpc, unique } from '../dashboard/support.ts';
import { linkIn, startInbox, type Inbox } from './inbox.ts';

let inbox: Inbox;
let service: TestService;
let deadEnd: Receiver;

beforeAll(async () => {
  inbox = await startInbox();
  deadEnd = await startReceiver(() => ({ status: 500, body: 'down for maintenance' }));
  service = await startDashboardService({
    worker: true,
    env: {
      SMTP_URL: inbox.smtpUrl,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms,100ms',
    },
  });
});
afterAll(async () => {
  await service?.stop();
  await deadEnd?.close();
  await inbox?.stop();
});

const attestation = () => ({ type: 'human', content: `notify ${Math.random()}`, contentType: 'text/plain' });

/** An on-chain create, retried on a 503 (the chain probe late on a busy machine charges nothing). */
async function create(key: string) {
  for (let attempt = 0; ; attempt++) {
    const res = await call(service.url, 'POST', '/v1/attestations', { key, body: attestation() });
    if (res.status !== 503 || attempt === 5) return res;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A key in a new account, and two members of it: an owner who keeps the defaults and a viewer. */
async function accountWithMembers(tier: 'free' | 'pro') {
  const { key, prefix, account } = await service.createKey(tier, unique('notify'));
  const row = await service.db
    .selectFrom('accounts')
    .select('id')
    .where('name', '=', account)
    .executeTakeFirstOrThrow();
  const owner = await createMember(service, 'owner', row.id);
  const viewer = await createMember(service, 'viewer', row.id);
  return { key, prefix, account, accountId: row.id, owner, viewer };
}

const sentTo = async (address: string) => (await inbox.all()).filter((m) => m.to === address);
/** Waits until every mail queued to `address` (in its outbox) was sent and reached the inbox: none is still to come. */
async function allMailedTo(address: string): Promise<void> {
  const queued = () => service.db.selectFrom('mailOutbox').select('sentAt').where('recipient', '=', address).execute();
  await waitFor(
    async () => {
      const mails = await queued();
      return mails.every((m) => m.sentAt) && (await sentTo(address)).length >= mails.length;
    },
    { timeout: 30_000, what: `the mail queued to ${address} sent` },
  );
}
const host = () => new URL(service.config.publicBaseUrl).host;

describe('notifications by mail, over a real SMTP server', () => {
  it('mails the on-chain quota at 80 % and at 100 % once each, to the members who want it', async () => {
    const { key, prefix, account, accountId, owner, viewer } = await accountWithMembers('free');
    const off = await trpc(service, 'dashboard.mail.setPreferences', {
      cookie: viewer.cookie,
      accountId,
      mutation: true,
      input: { quota: false, webhooks: true },
    });
    expect(off.body.result.data).toEqual({ quota: false, webhooks: true });
    await service.chargeQuota(prefix, 15); // 15 of the free plan's 20

    for (let n = 16; n <= 20; n++) expect((await create(key)).status).toBe(201);
    expect((await create(key)).status).toBe(429);

    const used = await inbox.waitFor((m) => m.to === owner.email && /used up/.test(m.subject));
    expect(used.subject).toBe(`The monthly on-chain quota is used up on ${host()}`);
    expect(used.text).toContain(`The account “${account}” has used`);
    expect(used.text).toContain('has used 20 of its 20 on-chain attestations this month');
    expect(used.html).toContain('has used 20 of its 20 on-chain attestations');
    // the notices are queued with the reservations: once those mails are out, no other is to come
    await allMailedTo(owner.email);
    await allMailedTo(viewer.email);
    const quotaMails = (await sentTo(owner.email)).filter((m) => /quota/.test(m.subject));
    expect(quotaMails.map((m) => m.subject).sort()).toEqual([
      `80 % of the monthly on-chain quota is used on ${host()}`,
      `The monthly on-chain quota is used up on ${host()}`,
    ]);
    expect((await sentTo(viewer.email)).filter((m) => /quota/.test(m.subject))).toEqual([]);
  });

  it('mails one digest when deliveries to an endpoint die, not one mail per delivery', async () => {
    const { key, account, owner } = await accountWithMembers('pro');
    const created = await call(service.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: deadEnd.url, events: ['attestation.created'] },
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await create(key)).status).toBe(201);

    const digest = await inbox.waitFor((m) => m.to === owner.email && /webhook/i.test(m.subject), 90_000);
    expect(digest.subject).toBe(`Webhook deliveries failed for good on ${host()}`);
    expect(digest.text).toContain(`of the account “${account}” failed`);
    expect(digest.text).toContain(`${deadEnd.url}: 3 deliveries (receiver answered 500)`);
    expect(linkIn(digest.text, service.config.publicBaseUrl)).toBe(
      `${service.config.publicBaseUrl}/dashboard/deliveries`,
    );
    await allMailedTo(owner.email);
    expect((await sentTo(owner.email)).filter((m) => /webhook/i.test(m.subject))).toHaveLength(1);
  });

  it('accounts invite mails the link; --no-mail only prints it', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: service.databaseUrl,
      PUBLIC_BASE_URL: service.config.publicBaseUrl,
      LOG_LEVEL: 'warn',
      SMTP_URL: inbox.smtpUrl,
    };
    const account = unique('cli-mail');
    const mailed = `${unique('mailed')}@example.com`;
    const quiet = `${unique('quiet')}@example.com`;
    const invite = (email: string, ...more: string[]) =>
      runCli(env, 'accounts', 'invite', '--account', account, '--email', email, '--role', 'admin', ...more);

    const sent = await invite(mailed, '--json');
    expect(sent.code).toBe(0);
    const printed = JSON.parse(sent.stdout) as { url: string; mailed: boolean };
    expect(printed.mailed).toBe(true);
    const mail = await inbox.waitFor((m) => m.to === mailed);
    expect(linkIn(mail.text, `${service.config.publicBaseUrl}/dashboard/invite/`)).toBe(printed.url);

    const kept = await invite(quiet, '--no-mail');
    expect(kept.code).toBe(0);
    expect(kept.stdout).toMatch(/^http:\/\/localhost:\d+\/dashboard\/invite\/[A-Za-z0-9_-]{43}\n/);
    expect(kept.stdout).not.toContain('mailed');
    // what the CLI mails it queues before it exits: nothing was, so nothing is to come
    expect(await service.db.selectFrom('mailOutbox').select('id').where('recipient', '=', quiet).execute()).toEqual([]);
    expect(await sentTo(quiet)).toEqual([]);
  });
});
