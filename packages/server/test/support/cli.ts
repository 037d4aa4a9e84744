import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/system/ports.ts';

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
 * `serve` (API and worker in one process) in a child of its own, as an operator runs it, on `port`, with the
 * verification app on a free port (not the default one another run may hold); resolves once /healthz answers.
 */
export async function serveChild(env: NodeJS.ProcessEnv, port: number): Promise<ChildProcess> {
  const ports = { PORT: String(port), VERIFY_PORT: String(await freePort()) };
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...env, ...ports },
    cwd: cliCwd(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // what it said before dying, for the error below (the last few KB are enough)
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4096)));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (up) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the service did not start: ${stderr.trim() || '(nothing on stderr)'}`);
}
