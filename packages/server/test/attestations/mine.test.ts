import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

const create = (key: string, overrides: Record<string, unknown>) =>
  call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: {
      type: 'human',
      content: `mine ${Math.random()}`,
      contentType: 'text/plain',
      mode: 'offchain',
      ...overrides,
    },
  });

describe('GET /v1/attestations?mine=true', () => {
  it("lists the account's own attestations as records, newest first, page by page, and no one else's", async () => {
    const { key, account } = await svc.createKey('pro');
    const second = await svc.createKey('pro', account);
    const stranger = await svc.createKey('pro');
    await create(stranger.key, {});
    const uids: string[] = [];
    for (let i = 0; i < 3; i++) uids.push((await create(i === 1 ? second.key : key, {})).body.uid);
    const first = await call(svc.url, 'GET', '/v1/attestations?mine=true&limit=2', { key });
    expect(first.status).toBe(200);
    expect(first.body.data.map((r: { uid: string }) => r.uid)).toEqual([uids[2], uids[1]]);
    expect(first.body.data[0]).toMatchObject({
      type: 'human',
      mode: 'offchain',
      digitalSourceType: expect.any(String),
    });
    const next = await call(svc.url, 'GET', `/v1/attestations?mine=true&limit=2&cursor=${first.body.nextCursor}`, {
      key,
    });
    expect(next.body.data.map((r: { uid: string }) => r.uid)).toEqual([uids[0]]);
    expect(next.body.nextCursor).toBeNull();
    const theirs = await call(svc.url, 'GET', '/v1/attestations?mine=true', { key: stranger.key });
    expect(theirs.body.data.map((r: { uid: string }) => r.uid)).not.toContain(uids[0]);
  });

  it('filters by type, mode and creation time', async () => {
    const { key } = await svc.createKey('enterprise');
    const ai = (await create(key, { type: 'ai' })).body.uid;
    const human = (await create(key, {})).body.uid;
    const onchain = (await create(key, { mode: 'onchain' })).body.uid;
    const list = async (query: string) =>
      (await call(svc.url, 'GET', `/v1/attestations?mine=true&${query}`, { key })).body.data.map(
        (r: { uid: string }) => r.uid,
      );
    expect(await list('type=ai')).toEqual([ai]);
    expect(await list('mode=onchain')).toEqual([onchain]);
    expect(await list('mode=offchain&type=human')).toEqual([human]);
    expect(await list(`to=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).toEqual([]);
    expect(await list(`from=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).toHaveLength(3);
  }, 60_000);

  it.each([
    ['neither hash nor mine', '', 'hash'],
    ['both hash and mine', `hash=${'ab'.repeat(32)}&mine=true`, 'hash'],
    ['a filter without mine', `hash=${'ab'.repeat(32)}&type=ai`, 'type'],
    ['from after to', 'mine=true&from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'],
    ['a date that is not one', 'mine=true&from=yesterday', 'from'],
    ['mine=false', 'mine=false', 'mine'],
  ])('answers 400 VALIDATION_FAILED for %s', async (_, query, path) => {
    const { key } = await svc.createKey('pro');
    const res = await call(svc.url, 'GET', `/v1/attestations?${query}`, { key });
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  });

  it('answers 401 MISSING_API_KEY without a key', async () => {
    const res = await call(svc.url, 'GET', '/v1/attestations?mine=true');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('MISSING_API_KEY');
  });
});
