import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../src/webhooks/url-guard.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

const resolve: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ worker: false, resolve });
}, 60_000);
afterAll(() => svc?.stop());

const NUL = '\u0000';
const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';
const SURROGATE_MESSAGE = 'must be well-formed Unicode text (it holds a lone surrogate)';
const HASH = 'ab'.repeat(32);
const UID = `0x${'cd'.repeat(32)}`;
const EVENTS = ['attestation.created'];
const JSON_HEADERS = { 'content-type': 'application/json' };
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');
const offchain = (overrides: Record<string, unknown> = {}) => ({
  type: 'human',
  content: 'a poem',
  contentType: 'text/plain',
  mode: 'offchain',
  ...overrides,
});

/** What an account has stored: attestations, subscriptions, audit entries. */
async function footprint(account: string): Promise<number[]> {
  const count = async (table: 'attestations' | 'webhookSubscriptions' | 'auditEntries') => {
    const row = await svc.db
      .selectFrom(table)
      .innerJoin('accounts', 'accounts.id', `${table}.accountId`)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('accounts.name', '=', account)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return [await count('attestations'), await count('webhookSubscriptions'), await count('auditEntries')];
}

interface Request {
  method: string;
  path: string;
  body?: unknown;
  rawBody?: string;
}

/** Sends a request as a fresh account and expects 400 VALIDATION_FAILED naming `path`, with nothing stored. */
async function expectRefused(request: Request, path: string, message: string) {
  const { key, account } = await svc.createKey('enterprise');
  const before = await footprint(account);
  const headers: Record<string, string> = request.rawBody === undefined ? {} : JSON_HEADERS;
  const { method, path: url, body, rawBody } = request;
  const res = await call(svc.url, method, url, { key, body, rawBody, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.code).toBe('VALIDATION_FAILED');
  expect(res.body.details.errors).toContainEqual({ path, message });
  expect(res.body.message).toContain(path);
  expect(await footprint(account)).toEqual(before);
}

const post = (path: string, body: unknown): Request => ({ method: 'POST', path, body });
const create = (body: unknown): Request => post('/v1/attestations', body);
const get = (path: string): Request => ({ method: 'GET', path });

describe('text PostgreSQL would refuse is 400 VALIDATION_FAILED on every route that takes text', () => {
  it.each([
    ['contentType', create(offchain({ contentType: `text/pl${NUL}ain` })), 'contentType'],
    ['a quoted contentType parameter', create(offchain({ contentType: `text/plain; cs="a${NUL}b"` })), 'contentType'],
    ['content', create(offchain({ content: `a${NUL}poem` })), 'content'],
    ['contentHash', create(offchain({ content: undefined, contentHash: `${HASH.slice(1)}${NUL}` })), 'contentHash'],
    ['an on-chain create', create(offchain({ mode: 'onchain', contentType: `text/plain; q="${NUL}"` })), 'contentType'],
    [
      'a batch item',
      post('/v1/attestations/batch', {
        attestations: [offchain(), offchain(), offchain(), offchain({ contentType: `text/plain; x="${NUL}"` })],
      }),
      'attestations.3.contentType',
    ],
    ['a revoke reason', post(`/v1/attestations/${UID}/revoke`, { reason: `spam${NUL}` }), 'reason'],
    ['a webhook url', post('/v1/webhooks', { url: `https://hooks.example/${NUL}`, events: EVENTS }), 'url'],
    [
      'a webhook event',
      post('/v1/webhooks', { url: 'https://hooks.example/a', events: [`attestation.created${NUL}`] }),
      'events.0',
    ],
    ['the search hash', get(`/v1/attestations?hash=${HASH}%00`), 'hash'],
    ['the search cursor', get(`/v1/attestations?hash=${HASH}&cursor=%00`), 'cursor'],
    ['the deliveries cursor', get(`/v1/webhooks/${randomUUID()}/deliveries?cursor=a%00`), 'cursor'],
    ['the audit export range', get('/v1/audit/export?from=2026-01-01%00'), 'from'],
    ['the audit export action', get('/v1/audit/export?action=attestation.created%00'), 'action'],
  ])('a NUL in %s', async (_what, request, path) => {
    await expectRefused(request, path, NUL_MESSAGE);
  });

  it('a NUL in a field name is refused too, without echoing the name', async () => {
    const rawBody = '{"type":"human","content":"x","contentType":"text/plain","mode":"offchain","a\\u0000b":1}';
    await expectRefused({ method: 'POST', path: '/v1/attestations', rawBody }, '', `field names ${NUL_MESSAGE}`);
  });

  it('content with a lone surrogate is refused (it has no UTF-8 form, so no SHA-256 of it exists)', async () => {
    const rawBody = '{"type":"human","content":"\\ud800","contentType":"text/plain","mode":"offchain"}';
    await expectRefused({ method: 'POST', path: '/v1/attestations', rawBody }, 'content', SURROGATE_MESSAGE);
  });

  it('a lone surrogate in a batch item is refused with its index', async () => {
    const item = '{"type":"ai","content":"ok \\udfff","contentType":"text/plain","mode":"offchain"}';
    const rawBody = `{"attestations":[${JSON.stringify(offchain())},${item}]}`;
    const request = { method: 'POST', path: '/v1/attestations/batch', rawBody };
    await expectRefused(request, 'attestations.1.content', SURROGATE_MESSAGE);
  });

  it('a well-formed surrogate pair (an emoji) is fine, and is hashed as sent', async () => {
    const { key } = await svc.createKey('enterprise');
    const rawBody = '{"type":"human","content":"\\ud83d\\ude00","contentType":"text/plain","mode":"offchain"}';
    const res = await call(svc.url, 'POST', '/v1/attestations', { key, rawBody, headers: JSON_HEADERS });
    expect(res.status).toBe(201);
    const read = await call(svc.url, 'GET', `/v1/attestations/${res.body.uid}`);
    const sha = createHash('sha256').update(Buffer.from('😀', 'utf8')).digest('hex');
    expect(read.body.contentHash).toBe(`0x${sha}`);
  });

  it('a stranger sending a NUL to a gated route learns nothing of it: 401 first', async () => {
    const body = offchain({ contentType: `text/pl${NUL}ain` });
    const res = await call(svc.url, 'POST', '/v1/attestations', { body });
    expect(res.status).toBe(401);
  });
});

describe('cursors are checked for shape and range before any query', () => {
  it.each([
    ['an id beyond bigint', cursorOf('id:9999999999999999999')],
    ['an id one past the largest bigint', cursorOf('id:9223372036854775808')],
    ['id zero', cursorOf('id:0')],
    ['a negative id', cursorOf('id:-1')],
    ['a leading zero', cursorOf('id:007')],
    ['stray characters around a good cursor', `${cursorOf('id:5')}!!`],
    ['text that is no cursor', 'hello'],
  ])('the search cursor: %s is 400', async (_what, cursor) => {
    const res = await call(svc.url, 'GET', `/v1/attestations?hash=${HASH}&cursor=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(400);
    const errors = [{ path: 'cursor', message: 'is not a cursor this API returned' }];
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors } });
  });

  it('the largest bigint id is a valid cursor (an empty page, not an error)', async () => {
    const cursor = cursorOf('id:9223372036854775807');
    const res = await call(svc.url, 'GET', `/v1/attestations?hash=${HASH}&cursor=${cursor}`);
    expect(res).toMatchObject({ status: 200, body: { data: [], nextCursor: null } });
  });

  const subscribe = async (key: string) => {
    const body = { url: `https://hooks.example/${randomUUID()}`, events: ['attestation.created'] };
    const hook = await call(svc.url, 'POST', '/v1/webhooks', { key, body });
    expect(hook.status).toBe(201);
    return hook.body.id as string;
  };

  it.each([
    ['month 13, day 45', '2026-13-45T10:00:00.000Z'],
    ['February 30', '2026-02-30T10:00:00.000Z'],
    ['hour 25 and minute 61', '2026-02-03T25:61:00.000Z'],
  ])('the deliveries cursor with an impossible date (%s) is 400', async (_what, at) => {
    const { key } = await svc.createKey();
    const id = await subscribe(key);
    const cursor = cursorOf(`${at}|${randomUUID()}`);
    const res = await call(svc.url, 'GET', `/v1/webhooks/${id}/deliveries?cursor=${cursor}`, { key });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ path: 'cursor' }] } });
  });

  it('a deliveries cursor for a real date and id pages normally', async () => {
    const { key } = await svc.createKey();
    const id = await subscribe(key);
    const cursor = cursorOf(`2026-02-28T10:00:00.000Z|${randomUUID()}`);
    const res = await call(svc.url, 'GET', `/v1/webhooks/${id}/deliveries?cursor=${cursor}`, { key });
    expect(res).toMatchObject({ status: 200, body: { data: [], nextCursor: null } });
  });
});

describe('the same rules on /trpc', () => {
  it('a lone surrogate in content is 400 VALIDATION_FAILED naming content', async () => {
    const { key, account } = await svc.createKey('enterprise');
    const before = await footprint(account);
    const rawBody = '{"type":"human","content":"\\ud800","contentType":"text/plain","mode":"offchain"}';
    const res = await call(svc.url, 'POST', '/trpc/attestations.create', { key, rawBody, headers: JSON_HEADERS });
    expect(res.status).toBe(400);
    const errors = [{ path: 'content', message: SURROGATE_MESSAGE }];
    expect(res.body.error.data).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors } });
    expect(await footprint(account)).toEqual(before);
  });

  it('a search cursor beyond bigint is 400 VALIDATION_FAILED naming cursor', async () => {
    const input = encodeURIComponent(JSON.stringify({ hash: HASH, cursor: cursorOf('id:9999999999999999999') }));
    const res = await call(svc.url, 'GET', `/trpc/attestations.search?input=${input}`);
    expect(res.status).toBe(400);
    const errors = [{ path: 'cursor' }];
    expect(res.body.error.data).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors } });
  });
});

describe('validation messages in plain words', () => {
  const search = `/v1/attestations?hash=${HASH}`;
  const WHOLE_1_TO_100 = 'must be a whole number from 1 to 100';
  const ORIGINS = 'must be one of: human, ai';
  it.each([
    ['a limit that is no number', 'GET', `${search}&limit=abc`, undefined, { path: 'limit', message: WHOLE_1_TO_100 }],
    ['a limit too large', 'GET', `${search}&limit=101`, undefined, { path: 'limit', message: 'must be at most 100' }],
    ['an unknown origin', 'POST', '/v1/attestations', offchain({ type: 'robot' }), { path: 'type', message: ORIGINS }],
    [
      'a field the request does not have',
      'POST',
      '/v1/attestations',
      offchain({ colour: 'red' }),
      { path: '', message: '"colour" is not a field of this request' },
    ],
    ['a missing field', 'POST', '/v1/attestations', { content: 'x' }, { path: 'type', message: 'is required' }],
    [
      'a revoke reason too long',
      'POST',
      `/v1/attestations/${UID}/revoke`,
      { reason: 'x'.repeat(501) },
      { path: 'reason', message: 'must be at most 500 characters' },
    ],
    [
      'an audit date that is no date',
      'GET',
      '/v1/audit/export?from=yesterday',
      undefined,
      { path: 'from', message: 'must be an ISO 8601 date-time or an ISO 8601 date' },
    ],
  ])('%s', async (_what, method, path, body, expected) => {
    const { key } = await svc.createKey('enterprise');
    const res = await call(svc.url, method, path, { key, body });
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toContainEqual(expected);
    expect(res.body.message).not.toMatch(/Invalid input|expected|received|Too big|Unrecognized/);
  });
});
