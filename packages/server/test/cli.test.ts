import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from './support/service.ts';
import { runCli } from './support/cli.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

const cli = (...args: string[]) =>
  runCli({ ...process.env, DATABASE_URL: svc.databaseUrl, LOG_LEVEL: 'warn' }, ...args);

describe('attestation-service keys', () => {
  it('create --json prints { key, prefix, tier, account, accountId, opened } once; the key works; revoke makes it 401 API_KEY_REVOKED', async () => {
    const created = await cli('keys', 'create', '--tier', 'pro', '--account', 'cli-acme', '--json');
    expect(created.code).toBe(0);
    const printed = JSON.parse(created.stdout);
    // ownerLink: the account was opened now (accounts/owner-link.ts; its use is tested in test/dashboard)
    expect(Object.keys(printed).sort()).toEqual([
      'account',
      'accountId',
      'key',
      'opened',
      'ownerLink',
      'prefix',
      'tier',
    ]);
    expect(printed.ownerLink).toEqual({
      url: expect.stringMatching(/\/dashboard\/invite\//),
      expiresAt: expect.any(String),
    });
    expect(printed).toMatchObject({
      tier: 'pro',
      account: 'cli-acme',
      accountId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      opened: true,
      key: expect.stringMatching(new RegExp(`^svc_pro_${printed.prefix}_[0-9a-f]{32}$`)),
    });

    const body = { type: 'human', content: 'cli', contentType: 'text/plain', mode: 'offchain' };
    expect((await call(svc.url, 'POST', '/v1/attestations', { key: printed.key, body })).status).toBe(201);

    const listed = await cli('keys', 'list', '--account', 'cli-acme', '--json');
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rows).toEqual([
      expect.objectContaining({ prefix: printed.prefix, tier: 'pro', account: 'cli-acme', revokedAt: null }),
    ]);
    expect(listed.stdout).not.toContain(printed.key.slice(-32));

    const revoked = await cli('keys', 'revoke', printed.prefix);
    expect(revoked.code).toBe(0);
    const after = await call(svc.url, 'POST', '/v1/attestations', { key: printed.key, body });
    expect(after).toMatchObject({ status: 401, body: { code: 'API_KEY_REVOKED' } });

    const relisted = JSON.parse((await cli('keys', 'list', '--account', 'cli-acme', '--json')).stdout.trim());
    expect(relisted.revokedAt).toEqual(expect.any(String));
  }, 60_000);

  it.each([
    [['keys', 'create'], /--tier/],
    [['keys', 'create', '--tier', 'gold'], /--tier/],
    [['keys', 'revoke', 'xyz'], /prefix/],
    [['frobnicate'], /unknown command/],
  ])(
    '%j fails with a clear message and a non-zero exit',
    async (args, message) => {
      const result = await cli(...args);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(message);
    },
    60_000,
  );

  it('revoke of an unknown prefix says so in one line and exits 1, without the usage', async () => {
    const result = await cli('keys', 'revoke', '000000000000');
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('attestation-service: no key with prefix 000000000000');
  }, 60_000);

  it("list shows each key's account and name under a header", async () => {
    const account = `cli-names-${Math.random().toString(36).slice(2, 8)}`;
    const named = JSON.parse(
      (await cli('keys', 'create', '--tier', 'free', '--account', account, '--name', 'billing-job', '--json')).stdout,
    );
    const unnamed = JSON.parse((await cli('keys', 'create', '--tier', 'pro', '--account', account, '--json')).stdout);
    const lines = (await cli('keys', 'list', '--account', account)).stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^PREFIX +TIER +ACCOUNT +NAME +CREATED +REVOKED$/);
    expect(lines[1]).toMatch(new RegExp(`^${named.prefix}  free +${account} +billing-job +\\d{4}-`));
    expect(lines[2]).toMatch(new RegExp(`^${unnamed.prefix}  pro +${account} +- +\\d{4}-`));
    const json = (await cli('keys', 'list', '--account', account, '--json')).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(json.map((k) => k.name)).toEqual(['billing-job', null]);
    expect((await cli('keys', 'list', '--account', 'nobody-has-this-account')).stderr.trim()).toBe('no keys');
  }, 60_000);

  it('refuses a malformed setting with one line naming it', async () => {
    const { stderr, code } = await runCli(
      { ...process.env, DATABASE_URL: svc.databaseUrl, PORT: 'eighty' },
      'keys',
      'list',
    );
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('PORT');
  });
});
