import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';
import { accountIdOf } from './support.ts';
import { runCli } from '../support/cli.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

const cli = (...args: string[]) =>
  runCli({ ...process.env, DATABASE_URL: svc.databaseUrl, LOG_LEVEL: 'warn' }, ...args);

/** An account with a key and three off-chain attestations: four entries; returns their ids in chain order. */
async function auditedAccount(): Promise<{ account: string; ids: string[] }> {
  const { key, account } = await svc.createKey('pro');
  for (let i = 0; i < 3; i++) {
    const res = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content: `v${i}`, contentType: 'text/plain', mode: 'offchain' },
    });
    expect(res.status).toBe(201);
  }
  const rows = await svc.db
    .selectFrom('auditEntries')
    .select('id')
    .where('accountId', '=', await accountIdOf(svc, account))
    .orderBy('id')
    .execute();
  return { account, ids: rows.map((r) => r.id) };
}

/** Edits or deletes an entry behind the service's back, as someone with the database could. */
const entries = () => svc.db.updateTable('auditEntries');
const remove = (id: string | undefined) => svc.db.deleteFrom('auditEntries').where('id', '=', id!).execute();

describe('attestation-service audit verify', () => {
  it('reports every chain intact, and exits 0', async () => {
    const { account } = await auditedAccount();
    const all = await cli('audit', 'verify');
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(new RegExp(`^${account}: intact, 4 entries, head [0-9a-f]{64}$`, 'm'));
    const json = await cli('audit', 'verify', '--account', account, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ account, entries: 4, intact: true, brokenAt: null });
  }, 60_000);

  it('names the row edited directly in the database, and exits 1', async () => {
    const { account, ids } = await auditedAccount();
    const { details } = await svc.db
      .selectFrom('auditEntries')
      .select('details')
      .where('id', '=', ids[2]!)
      .executeTakeFirstOrThrow();
    await entries()
      .set({ details: JSON.stringify({ ...(details as object), type: 'ai' }) })
      .where('id', '=', ids[2]!)
      .execute();
    const res = await cli('audit', 'verify', '--account', account);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(`${account}: BROKEN at entry ${ids[2]}: its contents hash to`);
    expect(res.stdout).toContain('the entry was edited');
    const json = JSON.parse((await cli('audit', 'verify', '--account', account, '--json')).stdout);
    expect(json).toMatchObject({ intact: false, brokenAt: ids[2], entries: 2 });
  }, 60_000);

  it('names the entry after one that was deleted', async () => {
    const { account, ids } = await auditedAccount();
    await remove(ids[1]);
    const res = await cli('audit', 'verify', '--account', account, '--json');
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toMatchObject({
      brokenAt: ids[2],
      reason: expect.stringContaining(`is not the hash of entry ${ids[0]}`),
    });
  }, 60_000);

  it('counts in words: one entry verified before an edit of the second', async () => {
    const { account, ids } = await auditedAccount();
    await entries().set({ outcome: 'failure' }).where('id', '=', ids[1]!).execute();
    const res = await cli('audit', 'verify', '--account', account);
    expect(res.stdout).toContain(`${account}: BROKEN at entry ${ids[1]}: `);
    expect(res.stdout).toContain('(1 entry verified before it)');
  }, 60_000);

  it('notices entries removed from the end (the recorded head is not reached)', async () => {
    const { account, ids } = await auditedAccount();
    await remove(ids.at(-1));
    const res = await cli('audit', 'verify', '--account', account);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(`${account}: BROKEN at the chain head: the recorded chain head is`);
  }, 60_000);

  it('fails clearly for an unknown account or sub-command', async () => {
    expect(await cli('audit', 'verify', '--account', 'nobody-here')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('no account named nobody-here'),
    });
    expect(await cli('audit', 'frobnicate')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown audit command'),
    });
  }, 60_000);
});
