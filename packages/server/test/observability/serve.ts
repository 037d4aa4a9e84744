import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, cliCwd } from '../support/cli.ts';

/**
 * A `serve` child with these arguments (`--api`, `--worker`), resolved once `readyUrl` answers 200; with `lines`, its
 * stdout's lines (the JSON log) are pushed there.
 */
export async function serveRole(
  args: string[],
  env: NodeJS.ProcessEnv,
  readyUrl: string,
  lines?: string[],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    env,
    cwd: cliCwd(),
    stdio: ['ignore', lines ? 'pipe' : 'ignore', 'pipe'],
  });
  if (lines) {
    let partial = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString('utf8');
      const complete = text.split('\n');
      partial = complete.pop()!;
      lines.push(...complete.filter(Boolean));
    });
  }
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4096)));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const up = await fetch(readyUrl)
      .then((r) => r.ok)
      .catch(() => false);
    if (up) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`serve ${args.join(' ')} did not start: ${stderr.trim() || '(nothing on stderr)'}`);
}

/** Stops a child as an orchestrator does (SIGTERM) and waits for it to exit. */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
