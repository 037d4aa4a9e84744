import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMember, startDashboardService, trpc, type TestMember } from '../dashboard/support.ts';
import { call, type TestService } from '../support/service.ts';
import { newCustomer, sha256, signOffchain } from './support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startDashboardService();
}, 60_000);
afterAll(() => service?.stop());

const mutate = (member: TestMember, path: string, input: unknown) =>
  trpc(service, `dashboard.attesters.${path}`, {
    cookie: member.cookie,
    accountId: member.accountId,
    mutation: true,
    input,
  });
const list = async (member: TestMember) =>
  (await trpc(service, 'dashboard.attesters.list', { cookie: member.cookie, accountId: member.accountId })).body.result
    .data.data as Array<{ address: string }>;

/** Registers an address as the member: the challenge, signed, handed back. */
async function registerAs(member: TestMember, customer = newCustomer()) {
  const challenge = await mutate(member, 'challenge', { address: customer.address });
  if (challenge.status !== 200) return { customer, res: challenge };
  const { id, message } = challenge.body.result.data;
  const signature = await customer.signMessage({ message });
  return { customer, res: await mutate(member, 'register', { challengeId: id, signature }) };
}

describe('attesters in the dashboard', () => {
  it('an admin registers and removes an address; the audit names the member', async () => {
    const owner = await createMember(service, 'owner');
    const { customer, res } = await registerAs(owner);
    expect(res.status).toBe(200);
    expect(res.body.result.data.address).toBe(customer.address);
    expect((await list(owner)).map((a) => a.address)).toEqual([customer.address]);

    // the account's keys can sign with it at once
    const key = (
      await trpc(service, 'dashboard.keys.create', {
        cookie: owner.cookie,
        accountId: owner.accountId,
        mutation: true,
        input: { name: 'signing', tier: 'free' },
      })
    ).body.result.data.key as string;
    const signing = (await call(service.url, 'GET', `/v1/attesters/${customer.address}/nonce`, { key })).body.signing;
    const contentHash = sha256('registered in the dashboard');
    const delegation = await signOffchain(customer, signing, {
      type: 'human',
      contentHash,
      time: Math.floor(Date.now() / 1000),
    });
    const created = await call(service.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', contentHash, contentType: 'text/plain', mode: 'offchain', delegation },
    });
    expect(created.status).toBe(201);

    expect((await mutate(owner, 'remove', { address: customer.address })).status).toBe(200);
    expect(await list(owner)).toEqual([]);
    const [registered] = await service.db
      .selectFrom('auditEntries')
      .select('details')
      .where('accountId', '=', owner.accountId)
      .where('action', '=', 'attester.registered')
      .$narrowType<{ details: { actor: { email: string } } }>()
      .execute();
    expect(registered!.details.actor.email).toBe(owner.email);
  }, 60_000);

  it('a viewer sees the list but cannot register (403 FORBIDDEN)', async () => {
    const owner = await createMember(service, 'owner');
    const viewer = await createMember(service, 'viewer', owner.accountId);
    await registerAs(owner);
    expect(await list(viewer)).toHaveLength(1);
    const { res } = await registerAs(viewer);
    expect(res.status).toBe(403);
  }, 60_000);
});
