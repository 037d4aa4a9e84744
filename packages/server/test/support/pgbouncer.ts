import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../src/system/ports.ts';

/** Debian's PgBouncer, which `./dev test` installs (scripts/ensure-debian-package.sh); PGBOUNCER_PATH names another. */
export const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** `databaseUrl` with its host and port replaced by the pooler's. */
  url(databaseUrl: string): string;
  stop(): Promise<void>;
}

/**
 * PgBouncer on a free loopback port in front of the server `serverUrl` names, every database by its own name, in
 * `mode` pooling, logging in to the server with the URL's user and password and trusting its own clients. The settings are the ones
 * docs/operations.md asks of a pooler in front of the API: `statement_timeout` in the startup packet ignored.
 */
export async function startPgBouncer(serverUrl: string, mode: 'transaction' | 'session'): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'pgbouncer-'));
  // the server's own credentials: none for the machine's PostgreSQL (trust on 127.0.0.1), the embedded cluster's
  // password otherwise, which PgBouncer then uses to log in to it (clients are trusted either way)
  const quoted = (text: string) => `"${decodeURIComponent(text).replaceAll('"', '""')}"`;
  await writeFile(join(dir, 'users.txt'), `${quoted(server.username)} ${quoted(server.password)}\n`);
  const ini = [
    '[databases]',
    `* = host=${server.hostname} port=${server.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    `pool_mode = ${mode}`,
    'ignore_startup_parameters = statement_timeout',
    'default_pool_size = 20',
    'max_client_conn = 500',
  ];
  await writeFile(join(dir, 'pgbouncer.ini'), `${ini.join('\n')}\n`);
  // it refuses to run as root, and then switches to the user it is given, who must read its files
  await chmod(dir, 0o755);
  const asRoot = process.getuid?.() === 0 ? ['-u', 'nobody'] : [];
  const child = spawn(PGBOUNCER, [...asRoot, join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4096)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  for (let tries = 0; ; tries++) {
    if (await accepts(port)) break;
    if (child.exitCode !== null || tries > 100) {
      await stop();
      throw new Error(`pgbouncer did not start: ${output.trim() || '(nothing on stderr)'}`);
    }
    await sleep(50);
  }
  return {
    url(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    stop,
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
