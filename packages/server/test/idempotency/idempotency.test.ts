import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/clock.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

const clock = manualClock(new Date('2026-11-22T10:00:00Z'));
let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ clock });
  key = (await svc.createKey('enterprise')).key;
});
afterAll(() => svc?.stop());

const hashOf = () => `0x${randomUUID().replace(/-/g, '').padEnd(64, '0')}`;
const bodyFor = (contentHash: string) => ({ type: 'human', contentHash, contentType: 'text/plain', mode: 'offchain' });
const create = (body: unknown, idempotencyKey: string, apiKey = key) =>
  call(svc.url, 'POST', '/v1/attestations', { key: apiKey, body, headers: { 'idempotency-key': idempotencyKey } });
const countFor = async (hash: string) => (await call(svc.url, 'GET', `/v1/attestations?hash=${hash}`)).body.data.length;

describe('Idempotency-Key', () => {
  it('a retry with the same key and body replays the first response: same uid, no second attestation', async () => {
    const hash = hashOf();
    const idem = randomUUID();
    const first = await create(bodyFor(hash), idem);
    const retry = await create(bodyFor(hash), idem);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await countFor(hash)).toBe(1);
  });

  it('the same key with another body is 409 IDEMPOTENCY_CONFLICT and changes nothing', async () => {
    const idem = randomUUID();
    await create(bodyFor(hashOf()), idem);
    const other = hashOf();
    const res = await create(bodyFor(other), idem);
    expect(res).toMatchObject({ status: 409, body: { code: 'IDEMPOTENCY_CONFLICT' } });
    expect(await countFor(other)).toBe(0);
  });

  it('concurrent duplicates make exactly one attestation and all see its uid', async () => {
    const hash = hashOf();
    const idem = randomUUID();
    const results = await Promise.all(Array.from({ length: 10 }, () => create(bodyFor(hash), idem)));
    const uids = new Set(results.map((r) => r.body.uid));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(uids.size).toBe(1);
    expect(await countFor(hash)).toBe(1);
  });

  it('is scoped to the API key: another key with the same Idempotency-Key makes its own attestation', async () => {
    const other = (await svc.createKey('enterprise')).key;
    const hash = hashOf();
    const idem = randomUUID();
    const a = await create(bodyFor(hash), idem);
    const b = await create(bodyFor(hash), idem, other);
    expect(a.body.uid).not.toBe(b.body.uid);
    expect(await countFor(hash)).toBe(2);
  });

  it('a failed request keeps nothing, so a corrected retry with the same key runs', async () => {
    const idem = randomUUID();
    const bad = await create({ ...bodyFor(hashOf()), type: 'robot' }, idem);
    expect(bad.status).toBe(400);
    const hash = hashOf();
    const good = await create(bodyFor(hash), idem);
    expect(good.status).toBe(201);
    expect(await countFor(hash)).toBe(1);
  });

  it('forgets a key after 24 hours', async () => {
    const hash = hashOf();
    const idem = randomUUID();
    const first = await create(bodyFor(hash), idem);
    clock.advance(24 * 60 * 60 * 1000 + 1);
    const later = await create(bodyFor(hash), idem);
    expect(later.body.uid).not.toBe(first.body.uid);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a non-ASCII character', 'clé'],
  ])('rejects a key %s with 400', async (_, idem) => {
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: bodyFor(hashOf()),
      headers: { 'idempotency-key': encodeURI(idem) === idem ? idem : Buffer.from(idem).toString('latin1') },
    });
    expect(res).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('works the same through /trpc', async () => {
    const hash = hashOf();
    const idem = randomUUID();
    const a = await call(svc.url, 'POST', '/trpc/attestations.create', {
      key,
      body: bodyFor(hash),
      headers: { 'idempotency-key': idem },
    });
    const b = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: bodyFor(hash),
      headers: { 'idempotency-key': idem },
    });
    expect(b.body.uid).toBe(a.body.result.data.uid);
    expect(await countFor(hash)).toBe(1);
  });
});
