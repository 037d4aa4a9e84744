import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/clock.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { createKeyService } from '../src/keys/service.ts';
import { call } from './support/service.ts';

const BIN = new URL('../../service/bin/attestation-service.mjs', import.meta.url).pathname;
const API = 'http://127.0.0.1:18380';
const dataDir = await mkdtemp(join(tmpdir(), 'attestation-shutdown-'));
const started: ChildProcess[] = [];

afterAll(async () => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

/** `serve` on embedded defaults, in a process group of its own as a terminal would run it; resolves once it serves. */
async function serve(): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '18380',
    VERIFY_PORT: '18381',
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    CHAIN_RPC_URL: '',
  };
  const child = spawn(process.execPath, [BIN, 'serve'], { env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  started.push(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('Ctrl-C stops')) resolve();
    });
    exited.then((code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)), reject);
  });
  return { child, exited };
}

async function databaseUrl(): Promise<string> {
  const { port, password } = JSON.parse(await readFile(join(dataDir, 'postgres.json'), 'utf8')) as {
    port: number;
    password: string;
  };
  return `postgresql://postgres:${password}@127.0.0.1:${port}/attestation_service`;
}

function childrenOf(pid: number): number[] {
  const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).trim();
  return out ? out.split(/\s+/).map(Number) : [];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(25);
  }
  return check();
}

describe('Ctrl-C in the terminal (SIGINT to the whole process group)', () => {
  it('drains an on-chain create in flight (201), stops the chain and the database in order, exits 0; a restart replays the key', async () => {
    const first = await serve();
    const url = await databaseUrl();
    const pool = createPool(url, 1);
    const db = createDatabase(pool);
    const { key } = await createKeyService(db, systemClock).create({
      tier: 'free',
      account: 'shutdown',
    });
    const children = childrenOf(first.child.pid!);
    expect(children.length).toBeGreaterThanOrEqual(2); // postgres and anvil (and their watchdogs)

    const body = { type: 'human', content: 'in flight at Ctrl-C', contentType: 'text/plain' };
    const headers = { 'idempotency-key': 'shutdown-test-1' };
    const create = call(API, 'POST', '/v1/attestations', { key, body, headers });
    // once the create is stored and waiting for its receipt, the terminal sends SIGINT to the foreground group
    const pending = await waitUntil(
      async () => (await db.selectFrom('attestations').select('id').execute()).length > 0,
      10_000,
    );
    expect(pending).toBe(true);
    await pool.end();
    process.kill(-first.child.pid!, 'SIGINT');

    const answered = await create;
    expect(answered.status, JSON.stringify(answered.body)).toBe(201);
    const uid = answered.body.uid as string;
    expect(await first.exited).toBe(0);
    expect(await waitUntil(() => children.every((pid) => !alive(pid)), 5_000)).toBe(true);

    const second = await serve();
    try {
      const replay = await call(API, 'POST', '/v1/attestations', { key, body, headers });
      expect(replay.status).toBe(201);
      expect(replay.body.uid).toBe(uid);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      process.kill(-second.child.pid!, 'SIGINT');
      expect(await second.exited).toBe(0);
    }
  }, 60_000);

  it('a service killed outright (SIGKILL) leaves no PostgreSQL or anvil behind', async () => {
    const running = await serve();
    const children = childrenOf(running.child.pid!);
    process.kill(running.child.pid!, 'SIGKILL');
    await running.exited;
    expect(await waitUntil(() => children.every((pid) => !alive(pid)), 10_000)).toBe(true);
    // and the same DATA_DIR starts again
    const again = await serve();
    process.kill(-again.child.pid!, 'SIGINT');
    expect(await again.exited).toBe(0);
  }, 60_000);
});
