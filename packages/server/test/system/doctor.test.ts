import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMigrations } from '../../src/db/migrate.ts';
import { freePort } from '../../src/system/ports.ts';
import { databaseLocation, SERVICE_STATE_FILE, type ServiceState } from '../../src/system/service-state.ts';
import { runCli } from '../support/cli.ts';
import { createEmptyTestDatabase, createTestDatabase } from '../support/database.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';

interface Finding {
  status: 'ok' | 'fail' | 'warn' | 'info';
  subject: string;
  message: string;
  setting?: string;
}

/** A JSON-RPC node that answers eth_chainId (31337), and an API whose /readyz says ready. */
let node: Server;
let nodeUrl: string;
let dir: string;
let databaseUrl: string;
let migrations: number;

beforeAll(async () => {
  node = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/readyz') return void res.end('{"status":"ready"}');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x7a69' }));
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  nodeUrl = `http://127.0.0.1:${(node.address() as { port: number }).port}`;
  dir = await mkdtemp(join(tmpdir(), 'doctor-'));
  databaseUrl = await createTestDatabase();
  migrations = (await readMigrations()).length;
});
afterAll(async () => {
  await new Promise<void>((resolve) => node.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const doctor = async (env: NodeJS.ProcessEnv, ...args: string[]) => {
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, SERVICE_SECRET: TEST_SERVICE_SECRET };
  return runCli({ ...base, DATA_DIR: join(dir, 'data'), ...env }, 'doctor', ...args);
};
// port 1 (tcpmux) has no listener anywhere, where a free port picked now may be taken before the probe (fetch
// refuses port 1 outright, so the chain's probe takes a free one)
const closed = 1;
const findingsOf = (stdout: string) => (JSON.parse(stdout) as { ok: boolean; findings: Finding[] }).findings;

describe('attestation-service doctor', () => {
  it('says what is configured and that it answers: exit 0', async () => {
    const key = 'k3y-in-the-path';
    const { code, stdout } = await doctor({ DATABASE_URL: databaseUrl, CHAIN_RPC_URL: `${nodeUrl}/v3/${key}` });
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toContain(
      `✓ database: ${databaseLocation(databaseUrl)} connects; all ${migrations} migrations applied`,
    );
    expect(lines).toContain(`✓ chain: ${new URL(nodeUrl).host} answers, chain 31337`);
    expect(lines).toContain('· mode: production (DATABASE_URL is set)');
    expect(lines).toContain('· .env: none read (no .env here, ENV_FILE unset)');
    expect(lines.filter((line) => line.startsWith('✗'))).toEqual([]);
    // a warning exactly when the server the tests use keeps autovacuum off
    const server = new pg.Client({ connectionString: databaseUrl });
    await server.connect();
    const { rows } = await server.query<{ on: boolean }>(`SELECT current_setting('autovacuum') = 'on' AS on`);
    await server.end();
    expect(lines.filter((line) => line.startsWith('!')).length).toBe(rows[0]!.on ? 0 : 1);
    expect(stdout).not.toContain(key);
  }, 30_000);

  it('names DATABASE_URL for a database that does not answer, REDIS_URL for a Redis, and exits 1', async () => {
    const { code, stdout } = await doctor({
      DATABASE_URL: `postgresql://postgres:hunter2secret@127.0.0.1:${closed}/attest`,
      CHAIN_RPC_URL: nodeUrl,
      REDIS_URL: `redis://:redis-pa55@127.0.0.1:${closed}`,
    });
    expect(code).toBe(1);
    expect(stdout).toContain(
      `✗ database: cannot connect to 127.0.0.1:${closed}/attest: nothing accepts connections there ` +
        '(is PostgreSQL running, on that port?) — check DATABASE_URL',
    );
    expect(stdout).toMatch(new RegExp(`^✗ redis: cannot reach 127\\.0\\.0\\.1:${closed}: .* — check REDIS_URL$`, 'm'));
    expect(stdout).not.toContain('hunter2secret');
    expect(stdout).not.toContain('redis-pa55');
  }, 30_000);

  it('names CHAIN_RPC_URL for a node that does not answer, and CHAIN_ID for one on another chain (--json)', async () => {
    const free = await freePort();
    const unreachable = await doctor(
      { DATABASE_URL: databaseUrl, CHAIN_RPC_URL: `http://127.0.0.1:${free}` },
      '--json',
    );
    expect(unreachable.code).toBe(1);
    expect(findingsOf(unreachable.stdout)).toContainEqual({
      status: 'fail',
      subject: 'chain',
      message: `cannot reach 127.0.0.1:${free}: nothing accepts connections there`,
      setting: 'CHAIN_RPC_URL',
    });
    const other = await doctor({ DATABASE_URL: databaseUrl, CHAIN_RPC_URL: nodeUrl, CHAIN_ID: '8453' }, '--json');
    expect(other.code).toBe(1);
    expect(findingsOf(other.stdout)).toContainEqual(
      expect.objectContaining({ subject: 'chain', setting: 'CHAIN_ID or CHAIN_RPC_URL' }),
    );
  }, 30_000);

  it('says a database lacks its migrations, and that no service has run in a DATA_DIR', async () => {
    const empty = await doctor({ DATABASE_URL: await createEmptyTestDatabase(), CHAIN_RPC_URL: nodeUrl }, '--json');
    expect(empty.code).toBe(1);
    expect(findingsOf(empty.stdout).find((f) => f.subject === 'database' && f.status === 'fail')?.message).toMatch(
      /connects, but \d+ of \d+ migrations are not applied/,
    );
    const nowhere = await doctor({ DATA_DIR: join(dir, 'never-served') }, '--json');
    expect(nowhere.code).toBe(1);
    expect(findingsOf(nowhere.stdout)).toContainEqual(
      expect.objectContaining({ subject: 'database', setting: 'DATA_DIR or DATABASE_URL' }),
    );
  }, 30_000);

  it("reads the running service's /readyz from service.json, and refuses a database that is not its", async () => {
    const dataDir = join(dir, 'data');
    await mkdir(dataDir, { recursive: true });
    const state: ServiceState = {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      apiUrl: nodeUrl,
      publicBaseUrl: 'http://localhost:8080',
      verifyBaseUrl: 'http://localhost:8081',
      database: { kind: 'url', location: databaseLocation(databaseUrl) },
    };
    await writeFile(join(dataDir, SERVICE_STATE_FILE), JSON.stringify(state));
    const same = await doctor({ DATABASE_URL: databaseUrl, CHAIN_RPC_URL: nodeUrl });
    expect(same.stdout).toContain(`✓ service: pid ${process.pid} answers ready on ${nodeUrl}`);
    expect(same.code).toBe(0);
    const other = await doctor({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/other', CHAIN_RPC_URL: nodeUrl });
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/✗ service: the service running with DATA_DIR=.* uses DATABASE_URL /);
    await rm(join(dataDir, SERVICE_STATE_FILE));
  }, 30_000);

  it('warns, failing nothing, when the server would never analyze or vacuum the tables', async () => {
    // track_counts may be set per session by a superuser (autovacuum only in the server's configuration): off, the
    // autovacuum daemon has nothing to go by, whatever autovacuum says
    const url = new URL(databaseUrl);
    url.searchParams.set('options', '-c track_counts=off');
    const { code, stdout } = await doctor({ DATABASE_URL: url.href, CHAIN_RPC_URL: nodeUrl });
    expect(code).toBe(0);
    expect(stdout.split('\n')).toContain(
      '! database: autovacuum is off on this server: tables are never analyzed as they grow, and queries slow ' +
        'down (turn autovacuum and track_counts on, or run VACUUM ANALYZE on a schedule) — check postgresql.conf',
    );
    expect(stdout).toContain(`✓ database: ${databaseLocation(databaseUrl)} connects`);
  }, 30_000);

  it('reports a malformed setting as a finding, and is also `config check`', async () => {
    const { code, stdout } = await runCli({ PATH: process.env.PATH, PORT: 'eighty' }, 'config', 'check');
    expect(code).toBe(1);
    expect(stdout).toMatch(/^✗ configuration: invalid configuration: PORT /m);
  }, 30_000);
});
