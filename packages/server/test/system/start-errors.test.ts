import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { freePort, requirePortsFree } from '../../src/system/ports.ts';
import { createTestDatabase } from '../support/database.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';
import { runCli } from '../support/cli.ts';

let busy: Server;
let port: number;

beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  port = (busy.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

describe('busy ports', () => {
  it('requirePortsFree names the setting of a taken port, and passes free ones and 0', async () => {
    await expect(requirePortsFree([{ setting: 'PORT', host: '127.0.0.1', port }])).rejects.toThrow(ConfigError);
    await expect(requirePortsFree([{ setting: 'VERIFY_PORT', host: '127.0.0.1', port }])).rejects.toThrow(
      `VERIFY_PORT=${port} is taken on 127.0.0.1`,
    );
    await expect(requirePortsFree([{ setting: 'PORT', host: '127.0.0.1', port: 0 }])).resolves.toBeUndefined();
  });

  it.each(['PORT', 'VERIFY_PORT'])(
    '`serve` with %s taken stops at once with one line naming it, before PostgreSQL or the chain start',
    async (setting) => {
      const dataDir = await mkdtemp(join(tmpdir(), 'busy-port-'));
      try {
        const env: NodeJS.ProcessEnv = {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          DATA_DIR: dataDir,
          HOST: '127.0.0.1',
          PORT: setting === 'PORT' ? String(port) : '0',
          VERIFY_PORT: setting === 'VERIFY_PORT' ? String(port) : '0',
          LOG_LEVEL: 'warn',
        };
        const started = performance.now();
        const { code, stderr } = await runCli(env, 'serve');
        expect(code).toBe(2);
        expect(stderr.trim()).toBe(
          `attestation-service: ${setting}=${port} is taken on 127.0.0.1: another process listens there (another instance of the service?); stop it, or set ${setting} to a free port`,
        );
        expect(performance.now() - started).toBeLessThan(15_000);
        // nothing was started: no database cluster in DATA_DIR
        expect((await readdir(dataDir)).filter((f) => f !== 'service-secret')).toEqual([]);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    30_000,
  );
});

describe('an unreachable database', () => {
  it('`serve` says DATABASE_URL in one line, with the host and port but no password', async () => {
    const closed = await freePort();
    const { code, stderr } = await runCli(
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: `postgresql://postgres:hunter2secret@127.0.0.1:${closed}/attestations`,
        SERVICE_SECRET: TEST_SERVICE_SECRET,
        PORT: '0',
        VERIFY_PORT: '0',
        LOG_LEVEL: 'warn',
      },
      'serve',
    );
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `attestation-service: DATABASE_URL: cannot connect to 127.0.0.1:${closed}/attestations: nothing accepts connections there (is PostgreSQL running, on that port?); check DATABASE_URL`,
    );
    expect(stderr).not.toContain('hunter2secret');
  }, 30_000);
});

describe('an unreachable chain', () => {
  it('`serve` says CHAIN_RPC_URL in one line, with the host but not the path or query that may hold a key', async () => {
    const closed = await freePort();
    const { code, stderr } = await runCli(
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: await createTestDatabase(),
        SERVICE_SECRET: TEST_SERVICE_SECRET,
        CHAIN_RPC_URL: `http://user:pa55word@127.0.0.1:${closed}/v3/provider-api-key?token=secret-token`,
        PORT: '0',
        VERIFY_PORT: '0',
        LOG_LEVEL: 'warn',
      },
      'serve',
      '--api',
    );
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `attestation-service: CHAIN_RPC_URL: cannot reach 127.0.0.1:${closed}: nothing accepts connections there; check CHAIN_RPC_URL`,
    );
    for (const secret of ['pa55word', 'provider-api-key', 'secret-token']) expect(stderr).not.toContain(secret);
  }, 30_000);
});
