import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';
import { accountIdOf, actionsInTable, eventually } from './support.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

const offchain = { type: 'human', content: 'completeness', contentType: 'text/plain', mode: 'offchain' };

async function entriesOf(accountId: string, action: string) {
  return svc.db
    .selectFrom('auditEntries')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('action', '=', action)
    .orderBy('id')
    .execute();
}

describe('auth.failed: failed authentications of a key that exists', () => {
  it('records a wrong secret, a wrong tier part and a revoked key, with reason and request, never the secret', async () => {
    const { key, prefix, account } = await svc.createKey('pro');
    const accountId = await accountIdOf(svc, account);
    const secret = key.slice(-32);
    const wrongSecret = `${key.slice(0, -32)}${'f'.repeat(32)}`;
    const wrongTier = key.replace('svc_pro_', 'svc_free_');
    const headers = { 'x-request-id': 'auth-fail-1', 'x-forwarded-for': '203.0.113.9' };
    expect(
      (await call(svc.url, 'POST', '/v1/attestations', { key: wrongSecret, body: offchain, headers })).body.code,
    ).toBe('INVALID_API_KEY');
    // each entry is written after its answer: wait for one before the next, so their order is the calls' order
    await eventually(async () => (await entriesOf(accountId, 'auth.failed')).length === 1);
    expect((await call(svc.url, 'GET', '/v1/audit/export', { key: wrongTier })).body.code).toBe('INVALID_API_KEY');
    await eventually(async () => (await entriesOf(accountId, 'auth.failed')).length === 2); // written after the answer
    await svc.services.keys.revoke(prefix);
    expect(
      (await call(svc.url, 'POST', '/v1/attestations/batch', { key, body: { attestations: [offchain] } })).body.code,
    ).toBe('API_KEY_REVOKED');

    await eventually(async () => (await entriesOf(accountId, 'auth.failed')).length === 3);
    const rows = await entriesOf(accountId, 'auth.failed');
    const details = rows.map((r) => r.details as { reason: string; procedure: string });
    expect(details.map((d) => [d.reason, d.procedure])).toEqual([
      ['wrong_secret', 'attestations.create'],
      ['wrong_tier', 'audit.export'],
      ['revoked', 'attestations.batch'],
    ]);
    expect(rows[0]).toMatchObject({
      actorKeyPrefix: prefix,
      resource: `api_key:${prefix}`,
      outcome: 'denied',
      requestId: 'auth-fail-1',
      ip: '203.0.113.9',
    });
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(JSON.stringify(rows)).not.toContain('f'.repeat(32));
    expect(await actionsInTable(svc, accountId)).toEqual([
      'api_key.created',
      'auth.failed',
      'auth.failed',
      'api_key.revoked',
      'auth.failed',
    ]);
  });

  it('records nothing for an unknown prefix or a malformed key (there is no account to record it in)', async () => {
    const failures = async () =>
      (
        await svc.db
          .selectFrom('auditEntries')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('action', '=', 'auth.failed')
          .executeTakeFirstOrThrow()
      ).n;
    const before = await failures();
    await call(svc.url, 'POST', '/v1/attestations', {
      key: `svc_pro_${'a'.repeat(12)}_${'b'.repeat(32)}`,
      body: offchain,
    });
    await call(svc.url, 'POST', '/v1/attestations', { key: 'not-a-key', body: offchain });
    // a fixed wait on purpose: nothing is to be written, and only time can show that nothing was
    await new Promise((r) => setTimeout(r, 300));
    const after = await failures();
    expect(after).toBe(before);
  });
});

describe('quota.refused', () => {
  it('records a refused single on-chain create, and nothing else of it (its transaction rolled back)', async () => {
    const { key, prefix, account } = await svc.createKey('free');
    await svc.chargeQuota(prefix, 20);
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { ...offchain, mode: 'onchain' },
      headers: { 'x-request-id': 'quota-1' },
    });
    expect(res).toMatchObject({ status: 429, body: { code: 'QUOTA_EXCEEDED' } });
    const accountId = await accountIdOf(svc, account);
    expect(await actionsInTable(svc, accountId)).toEqual(['api_key.created', 'quota.refused']);
    const [row] = await entriesOf(accountId, 'quota.refused');
    expect(row).toMatchObject({
      actorKeyPrefix: prefix,
      outcome: 'denied',
      requestId: 'quota-1',
      details: { procedure: 'attestations.create', tier: 'free', kind: 'onchain', used: 20, limit: 20 },
    });
  });
});
