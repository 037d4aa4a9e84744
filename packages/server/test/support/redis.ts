import { spawn } from 'node:child_process';
import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/system/ports.ts';
import { waitFor } from './wait.ts';

/** Debian's redis-server, which `./dev test` installs (scripts/ensure-debian-package.sh); REDIS_SERVER_PATH names another. */
export const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

export interface TestRedis {
  /** redis://127.0.0.1:PORT (or TEST_REDIS_URL as given). */
  url: string;
  stop(): Promise<void>;
}

/**
 * A Redis of the test's own, as the tests have their own PostgreSQL: redis-server as a child process on a free
 * loopback port with a temporary directory and no persistence, stopped (and its directory removed) by `stop`. With
 * TEST_REDIS_URL set, that Redis instead, left running by `stop`.
 */
export async function startTestRedis(): Promise<TestRedis> {
  const given = process.env.TEST_REDIS_URL;
  if (given) return { url: given, stop: async () => undefined };
  await access(REDIS_SERVER, constants.X_OK).catch(() => {
    throw new Error(
      `no redis-server at ${REDIS_SERVER}: ./dev test installs Debian's redis-server (or set REDIS_SERVER_PATH, or TEST_REDIS_URL to a running Redis)`,
    );
  });
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4096));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited: ${output.trim() || '(no output)'}`);
        return accepts(port);
      },
      { timeout: 10_000, what: `redis-server on port ${port}` },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}`, stop };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
