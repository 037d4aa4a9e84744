import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { freePort } from '../src/system/ports.ts';
import { join } from 'node:path';

const SERVER_DIR = join(import.meta.dirname, '..');
/** This checkout: the tree whose service the bench measures unless told another. */
export const THIS_TREE = join(import.meta.dirname, '../../..');

/** The young generation the bin gives a process serving the API (API_V8_FLAGS in packages/service/bin/attestation-service.mjs). */
export const API_HEAP_FLAG = '--max-semi-space-size=8';
/** V8's own limit on one semi-space on this machine kind, read off a running process: the baseline for that choice. */
export const V8_DEFAULT_HEAP_FLAG = '--max-semi-space-size=32';
export const V8_DEFAULT_HEAP = "V8's default young generation, 2 × 32 MB";

/** The data directories made for served processes, removed together when the bench exits. */
const dataDirs: string[] = [];
process.once('exit', () => {
  for (const made of dataDirs) rmSync(made, { recursive: true, force: true });
});

/**
 * A data directory of its own for a served process, removed when the bench exits: each runs its own dev chain there,
 * and a dev chain's directory is one process's (src/chain/dev-chain-lock.ts).
 */
export function ownDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  dataDirs.push(dir);
  return dir;
}

/** Resident set size of a process, from /proc (Linux). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

/** CPU seconds a process has used (user and system), from /proc/<pid>/stat; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    // the fields after the command name, which may hold spaces: utime and stime are the 12th and 13th of them
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every architecture Node.js runs on. */
const CLOCK_TICKS = 100;

/** CPU seconds each PostgreSQL process on the machine has used (the server the bench runs on, its backends), by pid. */
export function postgresCpuSeconds(): Map<number, number> {
  const used = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let name = '';
    try {
      name = readFileSync(`/proc/${entry}/comm`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    if (name.startsWith('postgres')) used.set(Number(entry), cpuSeconds(Number(entry)));
  }
  return used;
}

/** What PostgreSQL's processes used between two readings: a backend that began meanwhile counts from nothing. */
export function postgresCpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of postgresCpuSeconds()) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/**
 * Starts a node child in the server package and resolves once its output (stdout or stderr) matches `ready`, with
 * the match (a port it printed, say). Its output is drained from then on, as a real log shipper would.
 */
export function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: SERVER_DIR,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(ready);
      if (!match) return;
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.removeAllListeners('data');
        stream.resume();
      }
      resolve({ child, match });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`child exited with ${code}: ${seen.slice(-2000)}`)));
  });
}

/**
 * A full garbage collection in a child started with `--inspect=127.0.0.1:PORT` (the inspector's
 * HeapProfiler.collectGarbage): what it holds afterwards is what it keeps, whatever V8's heap sizing left committed.
 */
export async function collectGarbage(inspectPort: number): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  try {
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    await new Promise<void>((resolve, reject) => {
      socket.onmessage = (message) => {
        const answer = JSON.parse(String(message.data)) as { id?: number; error?: { message: string } };
        if (answer.id !== 1) return;
        if (answer.error) reject(new Error(answer.error.message));
        else resolve();
      };
      socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
    });
  } finally {
    socket.close();
  }
}

/**
 * A checkout's all-in-one `serve` (API, worker, relayer) on free ports, resolved once `/readyz` answers. Logs at warn;
 * BENCH_SERVICE_LOG=FILE keeps its debug log of the run instead, to see where its time goes.
 */
export async function serveAll(tree: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const logFile = process.env.BENCH_SERVICE_LOG;
  const child = spawn(process.execPath, [join(tree, 'packages/service/bin/attestation-service.mjs'), 'serve'], {
    cwd: join(tree, 'packages/server'),
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      VERIFY_PORT: String(await freePort()),
      LOG_LEVEL: logFile ? 'debug' : 'warn',
    },
    stdio: logFile ? ['ignore', openSync(logFile, 'w'), 'inherit'] : 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`${url}/readyz`)
        .then((r) => r.ok)
        .catch(() => false)
    )
      return { child, url };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the service of ${tree} did not become ready`);
}
