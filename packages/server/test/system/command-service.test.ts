import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseLocation, SERVICE_STATE_FILE, type ServiceState } from '../../src/system/service-state.ts';
import { CLI } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';

/** The CLI run from `cwd` (where it reads .env, and ./data), with only this environment. */
async function cliIn(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn' };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...base, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A service.json as a live service writes it: this test's own pid stands for the service's. */
async function liveService(dataDir: string, state: Partial<ServiceState>): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const full: ServiceState = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    publicBaseUrl: 'http://localhost:8080',
    verifyBaseUrl: 'http://localhost:8081',
    database: { kind: 'embedded', dataDir },
    ...state,
  };
  await writeFile(join(dataDir, SERVICE_STATE_FILE), JSON.stringify(full), { mode: 0o600 });
}

let dir: string;
let databaseUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-service-'));
  databaseUrl = await createTestDatabase();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const fresh = async (name: string) => {
  const path = join(dir, name);
  await mkdir(path, { recursive: true });
  return path;
};

describe('a command where no service has run', () => {
  it('refuses in one line (exit 2) and creates nothing in DATA_DIR', async () => {
    const cwd = await fresh('empty');
    const { code, stdout, stderr } = await cliIn(cwd, {}, 'keys', 'list');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(
      `attestation-service: no service has run with DATA_DIR=${cwd}/data (no database there): run the command from ` +
        "the service's directory, set DATA_DIR to the service's, or set DATABASE_URL (`migrate --create` makes a new one)",
    );
    expect(await readdir(cwd)).toEqual([]);

    const elsewhere = join(cwd, 'named');
    await mkdir(elsewhere);
    expect((await cliIn(cwd, { DATA_DIR: elsewhere }, 'accounts', 'list')).code).toBe(2);
    expect(await readdir(elsewhere)).toEqual([]);
  }, 30_000);
});

describe('a command beside a live service', () => {
  it('refuses a DATABASE_URL other than the service’s, naming both and no password', async () => {
    const cwd = await fresh('mismatch-url');
    await liveService(join(cwd, 'data'), {});
    const other = 'postgresql://postgres:hunter2secret@db.example:6432/elsewhere';
    const { code, stderr } = await cliIn(
      cwd,
      { DATABASE_URL: other, SERVICE_SECRET: TEST_SERVICE_SECRET },
      'keys',
      'list',
    );
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      `attestation-service: the service running with DATA_DIR=${cwd}/data (pid ${process.pid}) uses the embedded ` +
        `PostgreSQL in ${cwd}/data, but this command would use DATABASE_URL db.example:6432/elsewhere: unset ` +
        "DATABASE_URL, or set it to the service's",
    );
    expect(stderr).not.toContain('hunter2secret');
  }, 30_000);

  it('refuses the embedded database when the service uses DATABASE_URL', async () => {
    const cwd = await fresh('mismatch-embedded');
    await liveService(join(cwd, 'data'), { database: { kind: 'url', location: 'db.example:5432/attest' } });
    const { code, stderr } = await cliIn(cwd, {}, 'keys', 'list');
    expect(code).toBe(2);
    expect(stderr).toContain('uses DATABASE_URL db.example:5432/attest, but this command would use the embedded');
    expect(stderr).toContain('set DATABASE_URL to the service');
  }, 30_000);

  it('ignores the service.json of a process that is gone', async () => {
    const cwd = await fresh('stale');
    await liveService(join(cwd, 'data'), { pid: 2 ** 22 + 17 }); // above Linux's pid_max: never alive
    const env = { DATABASE_URL: databaseUrl, SERVICE_SECRET: TEST_SERVICE_SECRET };
    expect(await cliIn(cwd, env, 'keys', 'list')).toMatchObject({ code: 0, stderr: 'no keys\n' });
  }, 30_000);

  it("prints links at the service's public address unless PUBLIC_BASE_URL or PORT is set here", async () => {
    const cwd = await fresh('links');
    const location = databaseLocation(databaseUrl);
    await liveService(join(cwd, 'data'), {
      publicBaseUrl: 'http://attest.example:9123',
      database: { kind: 'url', location },
    });
    const env = { DATABASE_URL: databaseUrl, SERVICE_SECRET: TEST_SERVICE_SECRET };
    expect((await cliIn(cwd, env, 'keys', 'create', '--tier', 'free', '--account', 'links-co')).code).toBe(0);
    const invite = async (more: NodeJS.ProcessEnv) => {
      const args = ['accounts', 'invite', '--account', 'links-co', '--role', 'viewer', '--no-mail', '--json'];
      const run = await cliIn(cwd, { ...env, ...more }, ...args, '--email', 'x@example.com');
      expect(run.stderr).toBe('');
      return (JSON.parse(run.stdout) as { url: string }).url;
    };
    expect(await invite({})).toMatch(/^http:\/\/attest\.example:9123\/dashboard\/invite\//);
    expect(await invite({ PORT: '7001' })).toMatch(/^http:\/\/localhost:7001\/dashboard\/invite\//);
    expect(await invite({ PUBLIC_BASE_URL: 'https://mine.example' })).toMatch(/^https:\/\/mine\.example\/dashboard\//);
  }, 60_000);
});

describe('the .env file', () => {
  it('is read from the current directory; the environment wins; ENV_FILE names another', async () => {
    const cwd = await fresh('dotenv');
    await writeFile(
      join(cwd, '.env'),
      `# the service's settings\nDATABASE_URL=${databaseUrl}\nSERVICE_SECRET="${TEST_SERVICE_SECRET}"\n` +
        'PUBLIC_BASE_URL=https://dotenv.example\nPORT=8080\n',
    );
    await writeFile(join(cwd, 'other.env'), `DATABASE_URL=${databaseUrl}\nSERVICE_SECRET=${TEST_SERVICE_SECRET}\n`);
    const invite = async (env: NodeJS.ProcessEnv) => {
      const args = ['accounts', 'invite', '--support', '--email', 'help@example.com', '--no-mail', '--json'];
      const run = await cliIn(cwd, env, ...args);
      expect(run.stderr).toBe('');
      return (JSON.parse(run.stdout) as { url: string }).url;
    };
    expect(await invite({})).toMatch(/^https:\/\/dotenv\.example\/dashboard\/invite\//);
    expect(await invite({ PUBLIC_BASE_URL: 'https://env.example' })).toMatch(/^https:\/\/env\.example\//);
    expect(await invite({ ENV_FILE: 'other.env' })).toMatch(/^http:\/\/localhost:8080\/dashboard\/invite\//);

    // a service started with PORT=9555 in its environment over the same .env: its address wins over the file's
    await liveService(join(cwd, 'data'), {
      publicBaseUrl: 'http://localhost:9555',
      database: { kind: 'url', location: databaseLocation(databaseUrl) },
    });
    expect(await invite({})).toMatch(/^http:\/\/localhost:9555\/dashboard\/invite\//);
    expect(await invite({ PORT: '7001', PUBLIC_BASE_URL: '' })).toMatch(/^http:\/\/localhost:7001\//);

    const missing = await cliIn(cwd, { ENV_FILE: 'absent.env' }, 'keys', 'list');
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      `attestation-service: ENV_FILE=absent.env: cannot read ${cwd}/absent.env (ENOENT)`,
    );
  }, 60_000);
});
