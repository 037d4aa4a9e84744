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

/**
 * `serve` (API, worker and verification app in one process) in a child of its own, as an operator runs it, on `port`;
 * resolves once every part has started (the line serve ends its start with), not when the API alone answers: the
 * verification app starts after it, and a child that dies there would leave a test calling a closed port. The app
 * takes a port the kernel gives it (VERIFY_PORT=0), so no other process can take it between a choice and its bind.
 * A `port` something else took meanwhile (a restart reuses its port) is tried again for a few seconds.
 */
export async function serveChild(env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const started = await startServe(env, port, deadline);
    if ('child' in started) return started.child;
    if (!/PORT=\d+ is taken|EADDRINUSE/.test(started.stderr) || Date.now() > deadline)
      throw new Error(`the service did not start: ${started.stderr.trim() || '(nothing on stderr)'}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function startServe(
  env: NodeJS.ProcessEnv,
  port: number,
  deadline: number,
): Promise<{ child: ChildProcess } | { stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...env, PORT: String(port), VERIFY_PORT: '0' },
    cwd: cliCwd(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // what it said before dying, for the error (the last few KB are enough), and whether it said it had started
  let stderr = '';
  let started = false;
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4096);
    started ||= stderr.includes('Ctrl-C stops');
  });
  let gone = false; // exitCode stays null for a child a signal ended
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      gone = true;
      resolve();
    }),
  );
  while (!started && !gone && Date.now() < deadline)
    await Promise.race([exited, new Promise((r) => setTimeout(r, 50))]);
  if (started && !gone) return { child };
  child.kill('SIGKILL');
  await exited;
  return { stderr };
}
