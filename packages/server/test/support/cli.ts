import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The `attestation-service` command (the launcher's bin, packages/service), run with this Node as an operator runs it. */
export const CLI = join(import.meta.dirname, '../../../service/bin/attestation-service.mjs');

/**
 * The directory the CLI runs in: one per test process, so a developer's .env and ./data (and a service running
 * there) are not the tests', and the tests' ./data is not theirs.
 */
let cwd: string | undefined;
export const cliCwd = () => (cwd ??= mkdtempSync(join(tmpdir(), 'cli-cwd-')));

/** Runs the CLI to completion with this environment; never throws for a non-zero exit. */
export async function runCli(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env, cwd: cliCwd() });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** A CLI command running in a child of its own (see startCli). */
export interface CliRun {
  child: ChildProcess;
  /** Whether it said it had started (the line `serve` ends its start with) before it ended or the time ran out. */
  started: boolean;
  /** What it has printed on stderr so far: all of it once `ended` has settled. */
  stderr(): string;
  /** Its exit code once it has ended and its output has been read (null when a signal ended it). */
  ended: Promise<number | null>;
}

/**
 * Runs the CLI as an operator runs it (in the tests' directory, cliCwd) and resolves once it has said it started
 * ("…; Ctrl-C stops"), has ended, or `timeoutMs` has passed, whichever comes first.
 */
export function startCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = Infinity): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], { env, cwd: cliCwd(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  // 'close', not 'exit': by then everything it printed has been read
  const ended = new Promise<number | null>((resolve) => child.once('close', (code: number | null) => resolve(code)));
  return new Promise((resolve) => {
    const settle = (started: boolean) => {
      clearTimeout(timer);
      resolve({ child, started, stderr: () => stderr, ended });
    };
    const timer = Number.isFinite(timeoutMs) ? setTimeout(() => settle(false), timeoutMs) : undefined;
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('Ctrl-C stops')) settle(true);
    });
    child.once('close', () => settle(false));
  });
}

/**
 * `serve` (API, worker and verification app in one process) in a child of its own, on `port`; resolves once every
 * part has started, not when the API alone answers: the verification app starts after it, and a child that dies
 * there would leave a test calling a closed port. The app takes a port the kernel gives it (VERIFY_PORT=0), so no
 * other process can take it between a choice and its bind. A `port` something else took meanwhile (a restart reuses
 * its port) is tried again for a few seconds.
 */
export async function serveChild(env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = await startCli(['serve'], { ...env, PORT: String(port), VERIFY_PORT: '0' }, deadline - Date.now());
    if (run.started) return run.child;
    run.child.kill('SIGKILL');
    await run.ended;
    if (!/PORT=\d+ is taken|EADDRINUSE/.test(run.stderr()) || Date.now() > deadline)
      throw new Error(`the service did not start: ${run.stderr().trim() || '(nothing on stderr)'}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
