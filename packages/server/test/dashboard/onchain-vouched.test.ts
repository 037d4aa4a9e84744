import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAccount, insertMember } from '../support/db.ts';
import { linkIn, startInbox, type Inbox } from '../mail/inbox.ts';
import { call, randomIp, type TestService } from '../support/service.ts';
import { signUpOpen, startDashboardService, unique } from './support.ts';

let inbox: Inbox;
let service: TestService;

beforeAll(async () => {
  inbox = await startInbox();
  service = await startDashboardService({ worker: true, env: { DASHBOARD_SIGNUP: 'open', SMTP_URL: inbox.smtpUrl } });
});
afterAll(async () => {
  await service?.stop();
  await inbox?.stop();
});

const body = (mode: 'onchain' | 'offchain') => ({
  type: 'human',
  content: `vouched ${Math.random()}`,
  contentType: 'text/plain',
  mode,
});

/** An on-chain create; a 503 (the chain probe late on a busy machine) charged nothing and is retried, as the SDK does. */
async function create(key: string, mode: 'onchain' | 'offchain') {
  for (let attempt = 0; ; attempt++) {
    const res = await call(service.url, 'POST', '/v1/attestations', { key, body: body(mode) });
    if (res.status !== 503 || attempt === 5) return res;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A free account a sign-up opened before confirmation was required, its one owner unconfirmed, with a free key. */
async function unvouchedAccount() {
  const who = { email: `${unique('owner')}@example.com`, password: 'owner-password-long', name: 'Owner' };
  const up = await signUpOpen(service, who, { confirmed: false });
  const id = await insertAccount(service.db, { name: unique('unvouched'), createdBy: 'dashboard', vouched: false });
  await insertMember(service.db, { accountId: id, userId: up.userId, role: 'owner' });
  const minted = await service.services.keys.create({ tier: 'free', account: { id } });
  return { id, key: minted.key, email: who.email };
}

describe("the free plan's on-chain quota needs a confirmed owner", () => {
  it('on-chain creates of an account no owner confirmed are 403 and charge nothing; off-chain ones pass', async () => {
    const account = await unvouchedAccount();
    const refused = await create(account.key, 'onchain');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'OWNER_NOT_VERIFIED', kind: 'onchain' },
    });
    expect(refused.body.message).toContain('confirmed email address');
    const pending = await service.db
      .selectFrom('attestations')
      .select('id')
      .where('accountId', '=', account.id)
      .where('mode', '=', 'onchain')
      .execute();
    const usage = await service.db
      .selectFrom('accountMonthlyUsage')
      .select('onchainUsed')
      .where('accountId', '=', account.id)
      .execute();
    const used = usage.reduce((sum, row) => sum + row.onchainUsed, 0);
    expect({ pending: pending.length, used }).toEqual({ pending: 0, used: 0 });
    expect((await create(account.key, 'offchain')).status).toBe(201);
  });

  it('an owner confirming their address opens the quota', async () => {
    const account = await unvouchedAccount();
    expect((await create(account.key, 'onchain')).status).toBe(403);
    const mail = await inbox.waitFor((m) => m.to === account.email && /confirm/i.test(m.subject));
    const link = linkIn(mail.text, `${service.config.publicBaseUrl}/dashboard/api/auth/verify-email?token=`);
    expect((await fetch(link, { redirect: 'manual', headers: { 'x-forwarded-for': randomIp() } })).status).toBe(302);
    expect((await create(account.key, 'onchain')).status).toBe(201);
  });

  it("an account the operator's CLI opened (no member) is not held", async () => {
    const { key } = await service.createKey('free', unique('cli-opened'));
    expect((await create(key, 'onchain')).status).toBe(201);
  });

  it('nor is an account on a paid plan, whoever its owners are', async () => {
    const account = await unvouchedAccount();
    await service.db.updateTable('accounts').set({ plan: 'pro' }).where('id', '=', account.id).execute();
    expect((await create(account.key, 'onchain')).status).toBe(201);
  });
});
