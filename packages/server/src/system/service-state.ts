import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { isAlive } from './children.ts';

/** Where a running `serve` says what it is, in its DATA_DIR: the CLI and `doctor` of that DATA_DIR read it. */
export const SERVICE_STATE_FILE = 'service.json';

/** Which database a process uses: the embedded cluster of a DATA_DIR, or DATABASE_URL's host:port/name. */
export type DatabaseIdentity = { kind: 'embedded'; dataDir: string } | { kind: 'url'; location: string };

/** What a running service publishes about itself; never a secret (no password, no RPC path that may hold a key). */
export interface ServiceState {
  pid: number;
  startedAt: string;
  /** The API as bound (the real port when PORT=0); absent for a worker alone. */
  apiUrl?: string;
  publicBaseUrl: string;
  verifyBaseUrl: string;
  /** The verification app as bound, when this process runs it. */
  verifyUrl?: string;
  mailInboxUrl?: string;
  /** The embedded development chain: its RPC changes port at each start. */
  devChain?: { rpcUrl: string; chainId: number; eas: string };
  database: DatabaseIdentity;
}

/** `host:port/name` of a database URL, without its user or password. */
export function databaseLocation(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'the database';
  }
}

export function databaseIdentity(config: Pick<Config, 'databaseUrl' | 'dataDir'>): DatabaseIdentity {
  return config.databaseUrl
    ? { kind: 'url', location: databaseLocation(config.databaseUrl) }
    : { kind: 'embedded', dataDir: config.dataDir };
}

export function describeDatabase(identity: DatabaseIdentity): string {
  return identity.kind === 'embedded'
    ? `the embedded PostgreSQL in ${identity.dataDir}`
    : `DATABASE_URL ${identity.location}`;
}

// the loopback names reach the same server: `localhost` and `127.0.0.1` in two .env files are no mismatch
const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\]|::1):/;
const comparable = (identity: DatabaseIdentity) =>
  identity.kind === 'embedded' ? `embedded:${identity.dataDir}` : identity.location.replace(LOOPBACK, 'loopback:');

export function sameDatabase(a: DatabaseIdentity, b: DatabaseIdentity): boolean {
  return comparable(a) === comparable(b);
}

async function readServiceState(dataDir: string): Promise<ServiceState | undefined> {
  const text = await readFile(join(dataDir, SERVICE_STATE_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const state = JSON.parse(text) as ServiceState;
    return typeof state.pid === 'number' && state.database ? state : undefined;
  } catch {
    return undefined; // a torn or hand-edited file says nothing
  }
}

/** The state of the service running with this DATA_DIR; a file a dead process left is no service. */
export async function liveServiceState(dataDir: string): Promise<ServiceState | undefined> {
  const state = await readServiceState(dataDir);
  return state && isAlive(state.pid) ? state : undefined;
}

/**
 * Publishes this process's state (0600, written whole then renamed: a reader never sees half). Only one service per
 * DATA_DIR is described: a process without the API does not replace the state of a live one that has it.
 */
export async function writeServiceState(dataDir: string, state: ServiceState): Promise<boolean> {
  const current = await liveServiceState(dataDir);
  if (!state.apiUrl && current?.apiUrl && current.pid !== state.pid) return false;
  await mkdir(dataDir, { recursive: true });
  // a process killed between its write and its rename left its partial file: gone with it
  for (const name of await readdir(dataDir)) {
    const writer = /^service\.json\.(\d+)\.tmp$/.exec(name)?.[1];
    if (writer && !isAlive(Number(writer))) await rm(join(dataDir, name), { force: true });
  }
  const path = join(dataDir, SERVICE_STATE_FILE);
  const partial = `${path}.${process.pid}.tmp`;
  await writeFile(partial, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  await rename(partial, path);
  return true;
}

/** Removes the state on a clean stop, unless another process has published its own since. */
export async function removeServiceState(dataDir: string, pid: number): Promise<void> {
  const state = await readServiceState(dataDir);
  if (state?.pid === pid) await rm(join(dataDir, SERVICE_STATE_FILE), { force: true });
}
