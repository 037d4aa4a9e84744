import { chmod, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { inject, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, Secret } from '../../src/config.ts';
import { tokenSealer } from '../../src/accounts/invitation-seal.ts';
import { startService } from '../../src/main.ts';
import { loadServiceSecrets, SERVICE_SECRET_FILE } from '../../src/system/service-secret.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import '../support/provided.ts';

const A = 'first-service-secret-0123456789abcdefghijklm';
const B = 'second-service-secret-0123456789abcdefghijkl';
const REQUIRED =
  /^SERVICE_SECRET is required when (DATABASE_URL is set|NODE_ENV=production): set it to 32\+ random bytes, e\.g\. `openssl rand -base64 32`/;

// the config holds bigints (fee caps), which JSON.stringify refuses as they are
const json = (value: unknown) => JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
const dataDir = () => mkdtemp(join(tmpdir(), 'service-secret-'));

describe('SERVICE_SECRET', () => {
  it('is required when DATABASE_URL is set or NODE_ENV=production, and nothing is made in DATA_DIR then', async () => {
    const dir = await dataDir();
    const external = loadConfig({ DATA_DIR: dir, DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x' });
    await expect(loadServiceSecrets(external)).rejects.toThrow(ConfigError);
    await expect(loadServiceSecrets(external)).rejects.toThrow(REQUIRED);
    const production = loadConfig({ DATA_DIR: dir, NODE_ENV: 'production' });
    await expect(loadServiceSecrets(production)).rejects.toThrow(/when NODE_ENV=production/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('stops serve before it opens anything, and the CLI says what to set (exit 2)', async () => {
    const chain = inject('chain');
    const config = loadConfig({ PORT: '0', LOG_LEVEL: 'silent', DATABASE_URL: await createTestDatabase() });
    await expect(startService(config, { parts: { api: true, worker: false } })).rejects.toThrow(REQUIRED);
    const env = { PATH: process.env.PATH, DATABASE_URL: await createTestDatabase(), CHAIN_RPC_URL: chain.rpcUrl };
    const invite = await runCli(
      env,
      'accounts',
      'invite',
      '--account',
      'a',
      '--email',
      'a@example.com',
      '--role',
      'viewer',
    );
    expect(invite.code).toBe(2);
    expect(invite.stderr).toMatch(/attestation-service: SERVICE_SECRET is required when DATABASE_URL is set/);
    const serve = await runCli({ ...env, PORT: '0', VERIFY_PORT: '0' }, 'serve', '--api');
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/SERVICE_SECRET is required/);
  });

  it('is at least 32 characters, and a refusal does not print it', () => {
    expect(() => loadConfig({ SERVICE_SECRET: 'too-short-secret' })).toThrow(/SERVICE_SECRET must be at least 32/);
    expect(() => loadConfig({ SERVICE_SECRET: 'too-short-secret' })).not.toThrow(/too-short-secret/);
    expect(() => loadConfig({ SERVICE_SECRET: A, SERVICE_SECRET_PREVIOUS: 'short' })).toThrow(
      /SERVICE_SECRET_PREVIOUS must be at least 32/,
    );
  });

  it('never appears in a dump of the configuration (JSON, inspect, string)', () => {
    const config = loadConfig({ SERVICE_SECRET: A, SERVICE_SECRET_PREVIOUS: B });
    for (const text of [json(config), inspect(config, { depth: 10 }), `${config.serviceSecret.current}`])
      for (const secret of [A, B]) expect(text).not.toContain(secret);
    expect(JSON.stringify(config.serviceSecret)).toBe('{"current":"[redacted]","previous":"[redacted]"}');
    expect(config.serviceSecret.current?.reveal()).toBe(A);
  });
});

describe('the development secret in DATA_DIR', () => {
  it('is made at the first start with mode 0600, then reused', async () => {
    const dir = await dataDir();
    const first = await loadServiceSecrets(loadConfig({ DATA_DIR: dir }));
    const path = join(dir, SERVICE_SECRET_FILE);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(first.current.reveal()).toBe(await readFile(path, 'utf8'));
    expect(first.current.reveal()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await loadServiceSecrets(loadConfig({ DATA_DIR: dir }));
    expect(again.current.reveal()).toBe(first.current.reveal());
    expect(await readdir(dir)).toEqual([SERVICE_SECRET_FILE]);
  });

  it('is one secret for processes starting at once', async () => {
    const config = loadConfig({ DATA_DIR: await dataDir() });
    const all = await Promise.all(Array.from({ length: 6 }, () => loadServiceSecrets(config)));
    expect(new Set(all.map((s) => s.current.reveal())).size).toBe(1);
  });

  it('is refused when other users may read it, or when it holds no secret', async () => {
    const dir = await dataDir();
    const path = join(dir, SERVICE_SECRET_FILE);
    await loadServiceSecrets(loadConfig({ DATA_DIR: dir }));
    await chmod(path, 0o644);
    await expect(loadServiceSecrets(loadConfig({ DATA_DIR: dir }))).rejects.toThrow(/mode 644\): run chmod 600/);
    await writeFile(path, 'short\n', { mode: 0o600 });
    await chmod(path, 0o600);
    await expect(loadServiceSecrets(loadConfig({ DATA_DIR: dir }))).rejects.toThrow(/holds no secret of 32\+/);
  });

  it('is not used when SERVICE_SECRET is set', async () => {
    const dir = await dataDir();
    const secrets = await loadServiceSecrets(loadConfig({ DATA_DIR: dir, SERVICE_SECRET: A }));
    expect(secrets.current.reveal()).toBe(A);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('sealed invitation tokens', () => {
  it('open with the current secret, then SERVICE_SECRET_PREVIOUS; under neither, or tampered with, they do not', () => {
    const sealed = tokenSealer({ current: new Secret(A), previous: undefined }).seal('the-token');
    expect(sealed).toMatch(/^v2\./);
    expect(tokenSealer({ current: new Secret(A), previous: undefined }).unseal(sealed)).toBe('the-token');
    expect(tokenSealer({ current: new Secret(B), previous: new Secret(A) }).unseal(sealed)).toBe('the-token');
    expect(tokenSealer({ current: new Secret(B), previous: undefined }).unseal(sealed)).toBeUndefined();
    const [version, iv, body, tag] = sealed.split('.');
    const shortTag = [version, iv, body, tag!.slice(0, 6)].join('.');
    expect(tokenSealer({ current: new Secret(A), previous: undefined }).unseal(shortTag)).toBeUndefined();
    expect(
      tokenSealer({ current: new Secret(A), previous: undefined }).unseal(`v1.${iv}.${body}.${tag}`),
    ).toBeUndefined();
  });
});
