import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';
import { accountIdOf, appendEntries, csvToEntries, exportOf, recomputeChain } from './support.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

const DAY = 86_400_000;

async function accountWith(entries: Array<{ at: Date; resource?: string; action?: string }>) {
  const created = await svc.createKey('enterprise');
  await appendEntries(svc, await accountIdOf(svc, created.account), entries);
  return created;
}

describe('GET /v1/audit/export: the range [from, to)', () => {
  it('defaults to the last 30 days', async () => {
    const now = Date.now();
    const { key } = await accountWith([
      { at: new Date(now - 40 * DAY), resource: 'old' },
      { at: new Date(now - 10 * DAY), resource: 'recent' },
    ]);
    const resources = (await exportOf(svc, key)).body.map((e: { resource: string }) => e.resource);
    expect(resources).toContain('recent');
    expect(resources).not.toContain('old');
    const withFrom = (await exportOf(svc, key, `?from=${new Date(now - 50 * DAY).toISOString()}`)).body.map(
      (e: { resource: string }) => e.resource,
    );
    expect(withFrom).toEqual(expect.arrayContaining(['old', 'recent']));
  });

  it('includes an entry at exactly `from` and excludes one at exactly `to`; offsets are honoured', async () => {
    const from = new Date('2026-03-01T00:00:00.000Z');
    const to = new Date('2026-03-02T00:00:00.000Z');
    const { key } = await accountWith([
      { at: new Date(from.getTime() - 1), resource: 'before' },
      { at: from, resource: 'at-from' },
      { at: new Date(to.getTime() - 1), resource: 'last-ms' },
      { at: to, resource: 'at-to' },
    ]);
    const resources = async (query: string) =>
      (await exportOf(svc, key, query)).body.map((e: { resource: string }) => e.resource);
    expect(await resources(`?from=${from.toISOString()}&to=${to.toISOString()}`)).toEqual(['at-from', 'last-ms']);
    expect(await resources('?from=2026-03-01T01:00:00%2B01:00&to=2026-03-02')).toEqual(['at-from', 'last-ms']);
  });

  it('answers 400 VALIDATION_FAILED when from is not before to, or the range is over 366 days', async () => {
    const { key } = await svc.createKey('pro');
    const cases = [
      ['?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 'from'],
      ['?from=2026-03-01T00:00:00Z&to=2026-03-01T00:00:00Z', 'from'],
      ['?from=2025-01-01T00:00:00Z&to=2026-01-03T00:00:00Z', 'to'],
      [`?from=${new Date(Date.now() - 367 * DAY).toISOString()}`, 'to'],
    ] as const;
    for (const [query, path] of cases) {
      const res = await exportOf(svc, key, query);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ path }] } });
    }
    expect((await exportOf(svc, key, '?from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:00Z')).status).toBe(200); // exactly 366 days
  });

  it('filters by action', async () => {
    const at = new Date(Date.now() - DAY);
    const { key } = await accountWith([
      { at, action: 'a.one' },
      { at, action: 'a.two' },
      { at, action: 'a.one' },
    ]);
    const actions = (await exportOf(svc, key, '?action=a.one')).body.map((e: { action: string }) => e.action);
    expect(actions).toEqual(['a.one', 'a.one']);
  });
});

describe('GET /v1/audit/export: CSV cells', () => {
  it('escapes cells a spreadsheet would run as formulas, reversibly, and quotes per RFC 4180', async () => {
    const at = new Date(Date.now() - DAY);
    const risky = [
      '=HYPERLINK("http://evil","x")',
      '+SUM(A1)',
      '-2+3',
      '@cmd',
      '\tx',
      '\rx',
      "'quoted",
      'a,b',
      'line\nbreak',
      'plain',
    ];
    const { key } = await accountWith(risky.map((resource) => ({ at, resource })));
    const csv = (await exportOf(svc, key, '?format=csv')).text;
    expect(csv).toContain(`,"'=HYPERLINK(""http://evil"",""x"")",`);
    for (const cell of ["'+SUM(A1)", "'-2+3", "'@cmd", "'\tx", "''quoted", '"a,b"', '"line\nbreak"', ',plain,'])
      expect(csv).toContain(cell);
    expect(csv).toContain(`"'\rx"`);
    const json = (await exportOf(svc, key, '?format=json')).body;
    expect(csvToEntries(csv)).toEqual(json);
    expect(json.slice(1).map((e: { resource: string }) => e.resource)).toEqual(risky);
  });

  it('escapes a caller-chosen request id that starts with "-"', async () => {
    const { key } = await svc.createKey('pro');
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'ai', content: 'x', contentType: 'text/plain', mode: 'offchain' },
      headers: { 'x-request-id': '-1.5' },
    });
    expect(res.status).toBe(201);
    const csv = (await exportOf(svc, key, '?format=csv')).text;
    expect(csv).toContain(",'-1.5,");
    expect(csvToEntries(csv).at(-1)).toMatchObject({ requestId: '-1.5' });
  });
});

describe('GET /v1/audit/export: many pages', () => {
  it('streams 4 500 entries (46 keyset pages of 100) in chain order, every hash recomputable and linked', async () => {
    const start = Date.now() - 5 * DAY;
    const { key } = await accountWith(
      Array.from({ length: 4500 }, (_, i) => ({ at: new Date(start + i), resource: `r:${i}`, details: { i } })),
    );
    const [json, csv] = await Promise.all([exportOf(svc, key, '?format=json'), exportOf(svc, key, '?format=csv')]);
    expect(json.body).toHaveLength(4501);
    expect(json.body.slice(1).map((e: { resource: string }) => e.resource)).toEqual(
      Array.from({ length: 4500 }, (_, i) => `r:${i}`),
    );
    const ids = json.body.map((e: { id: string }) => BigInt(e.id));
    expect(ids.every((id: bigint, i: number) => i === 0 || id > ids[i - 1])).toBe(true);
    expect(recomputeChain(json.body)).toEqual({ hashesMatch: true, linked: true });
    expect(csvToEntries(csv.text)).toEqual(json.body);
  });
});
