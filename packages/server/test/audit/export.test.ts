import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';
import { accountIdOf, actionsInTable, csvToEntries, eventually, exportOf, recomputeChain } from './support.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(() => svc?.stop());

const item = (mode: 'onchain' | 'offchain', content: string) => ({
  type: 'human',
  content,
  contentType: 'text/plain',
  mode,
});

describe('GET /v1/audit/export after a scripted run of calls', () => {
  it('holds exactly the expected actions in order, in JSON and in CSV, with hashes a recipient can recompute', async () => {
    const secretWords = `confidential draft ${Math.random()}`;
    const { key, prefix, account } = await svc.createKey('free');
    const accountId = await accountIdOf(svc, account);
    const expected = ['api_key.created'];
    const step = async (method: string, path: string, body: unknown, status: number, actions: string[]) => {
      const res = await call(svc.url, method, path, { key, body });
      expect(res.status, `${method} ${path}: ${String(JSON.stringify(res.body)).slice(0, 300)}`).toBe(status);
      expected.push(...actions);
      return res.body;
    };

    const offchain = await step('POST', '/v1/attestations', item('offchain', secretWords), 201, [
      'attestation.created',
    ]);
    await step('POST', '/v1/attestations', item('onchain', `${secretWords} on-chain`), 201, ['attestation.created']);
    // off-chain items at request time, then the batch, then its on-chain item when mined
    await step(
      'POST',
      '/v1/attestations/batch',
      { attestations: [item('offchain', 'b0'), item('onchain', 'b1')] },
      201,
      ['attestation.created', 'batch.created', 'attestation.created'],
    );
    await step('POST', `/v1/attestations/${offchain.uid}/revoke`, { reason: 'mistake' }, 200, ['attestation.revoked']);
    const hook = await step(
      'POST',
      '/v1/webhooks',
      { url: 'http://127.0.0.1:9/hook', events: ['attestation.created'] },
      201,
      ['webhook.subscribed'],
    );
    await step('DELETE', `/v1/webhooks/${hook.id}`, undefined, 204, ['webhook.deleted']);
    // 2 on-chain used of the free tier's 20: a batch of 19 more is refused whole
    const refused = await step(
      'POST',
      '/v1/attestations/batch',
      { attestations: Array.from({ length: 19 }, (_, i) => item('onchain', `q${i}`)) },
      429,
      ['quota.refused'],
    );
    expect(refused.code).toBe('QUOTA_EXCEEDED');
    const wrongSecret = await call(svc.url, 'POST', '/v1/attestations', {
      key: `${key.slice(0, -32)}${'0'.repeat(32)}`,
      body: item('offchain', 'x'),
    });
    expect(wrongSecret.body.code).toBe('INVALID_API_KEY');
    expected.push('auth.failed');
    await eventually(async () => (await actionsInTable(svc, accountId)).length === expected.length);

    const json = await exportOf(svc, key, '?format=json');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(json.body.map((e: { action: string }) => e.action)).toEqual(expected);

    const csv = await exportOf(svc, key, '?format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(csv.text.split('\r\n')[0]).toBe(
      'id,accountId,at,action,actorKeyPrefix,resource,outcome,ip,requestId,details,prevHash,hash',
    );
    expect(csvToEntries(csv.text)).toEqual(json.body);

    expect(recomputeChain(json.body)).toEqual({ hashesMatch: true, linked: true });
    expect(json.body[0].prevHash).toBe('0'.repeat(64));
    expect(json.body.every((e: { accountId: string }) => e.accountId === accountId)).toBe(true);
    expect(json.text).not.toContain(secretWords);

    const byAction = (action: string) => json.body.filter((e: { action: string }) => e.action === action);
    expect(byAction('quota.refused')[0]).toMatchObject({
      actorKeyPrefix: prefix,
      outcome: 'denied',
      details: { procedure: 'attestations.batch', tier: 'free', used: 2, limit: 20 },
    });
    expect(byAction('auth.failed')[0]).toMatchObject({
      actorKeyPrefix: prefix,
      outcome: 'denied',
      details: { reason: 'wrong_secret' },
    });
    const created = byAction('attestation.created');
    expect(created.map((e: { details: { mode: string } }) => e.details.mode)).toEqual([
      'offchain',
      'onchain',
      'offchain',
      'onchain',
    ]);
    const batchId = byAction('batch.created')[0].resource.replace('batch:', '');
    expect(created.slice(2).map((e: { details: { batchId: string } }) => e.details.batchId)).toEqual([
      batchId,
      batchId,
    ]);
    expect(created[3].details.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  }, 120_000);
});

describe('GET /v1/audit/export: who may read what', () => {
  it("gives account A only its own entries, never account B's", async () => {
    const a = await svc.createKey('pro');
    const b = await svc.createKey('pro');
    for (const k of [a.key, b.key, b.key])
      await call(svc.url, 'POST', '/v1/attestations', { key: k, body: item('offchain', 'iso') });
    const [exportA, exportB] = await Promise.all([exportOf(svc, a.key), exportOf(svc, b.key)]);
    const idsB = new Set(exportB.body.map((e: { id: string }) => e.id));
    expect(exportA.body.map((e: { action: string }) => e.action)).toEqual(['api_key.created', 'attestation.created']);
    expect(exportA.body.some((e: { id: string }) => idsB.has(e.id))).toBe(false);
    expect(new Set(exportA.body.map((e: { accountId: string }) => e.accountId))).toEqual(
      new Set([await accountIdOf(svc, a.account)]),
    );
  });

  it("refuses a revoked key with 401 API_KEY_REVOKED, and the attempt is in the account's log", async () => {
    const revoked = await svc.createKey('pro');
    await svc.services.keys.revoke(revoked.prefix);
    const res = await exportOf(svc, revoked.key);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'API_KEY_REVOKED', message: expect.any(String), details: {} });
    const other = await svc.createKey('pro', revoked.account);
    await eventually(async () => (await exportOf(svc, other.key, '?action=auth.failed')).body.length === 1);
    const [failure] = (await exportOf(svc, other.key, '?action=auth.failed')).body;
    expect(failure).toMatchObject({
      actorKeyPrefix: revoked.prefix,
      resource: `api_key:${revoked.prefix}`,
      details: { reason: 'revoked', procedure: 'audit.export' },
    });
  });

  it('needs a key: 401 MISSING_API_KEY with the API error body', async () => {
    const res = await call(svc.url, 'GET', '/v1/audit/export');
    expect(res).toMatchObject({
      status: 401,
      body: { code: 'MISSING_API_KEY', message: expect.any(String), details: {} },
    });
  });
});

describe('GET /v1/audit/export: formats', () => {
  it('negotiates with Accept when format is absent; format wins when given; 406 when neither is acceptable', async () => {
    const { key } = await svc.createKey('pro');
    const type = async (query: string, accept?: string) =>
      (await exportOf(svc, key, query, accept ? { accept } : {})).headers.get('content-type');
    expect(await type('')).toMatch(/^application\/json/);
    expect(await type('', 'text/csv')).toMatch(/^text\/csv/);
    expect(await type('', 'application/json;q=0.5, text/csv')).toMatch(/^text\/csv/);
    expect(await type('', 'text/csv;q=0.2, application/json')).toMatch(/^application\/json/);
    expect(await type('', '*/*')).toMatch(/^application\/json/);
    expect(await type('?format=json', 'text/csv')).toMatch(/^application\/json/);
    expect(await type('?format=csv', 'application/json')).toMatch(/^text\/csv/);
    const refused = await exportOf(svc, key, '', { accept: 'application/xml' });
    expect(refused).toMatchObject({
      status: 406,
      body: { code: 'NOT_ACCEPTABLE', details: { available: ['application/json', 'text/csv'] } },
    });
  });

  it('is a download named audit-<account>-<from>-<to>.<ext>', async () => {
    const { key, account } = await svc.createKey('pro');
    const res = await exportOf(svc, key, '?format=csv&from=2026-01-01T00:00:00Z&to=2026-02-01');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="audit-${account}-20260101T000000Z-20260201T000000Z.csv"`,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).toBe(
      'id,accountId,at,action,actorKeyPrefix,resource,outcome,ip,requestId,details,prevHash,hash\r\n',
    );
    const json = await exportOf(svc, key, '?from=2026-01-01T00:00:00Z&to=2026-02-01');
    expect(json.headers.get('content-disposition')).toMatch(/\.json"$/);
    expect(json.body).toEqual([]);
  });

  it('rejects unknown parameters and formats with 400 VALIDATION_FAILED', async () => {
    const { key } = await svc.createKey('pro');
    for (const query of ['?format=xml', '?since=2026-01-01', '?from=yesterday']) {
      const res = await exportOf(svc, key, query);
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe('VALIDATION_FAILED');
    }
  });
});
