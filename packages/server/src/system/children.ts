import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * Spawns a long-running child (PostgreSQL, anvil) in a process group of its own, so that a terminal's Ctrl-C, which
 * goes to the whole foreground group, reaches only the service: the service then stops its children itself, in
 * order, after its requests have drained (docs/operations.md). A detached child would outlive a service that is
 * killed outright (SIGKILL, OOM), so a watchdog (a shell blocked reading a pipe from this process) sends it
 * `onOrphaned` when that pipe closes, which only this process's death does; it goes when the child goes.
 */
export function spawnInOwnGroup(
  command: string,
  args: string[],
  options: SpawnOptions,
  onOrphaned: NodeJS.Signals,
): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid === undefined) return child; // the spawn failed: its 'error' event says why
  const watchdog = spawn(
    'sh',
    ['-c', 'read _; kill -s "$0" "$1" 2>/dev/null', onOrphaned.replace(/^SIG/, ''), String(child.pid)],
    {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  watchdog.on('error', () => undefined); // no shell: the child then has no guard, as before
  // neither the watchdog nor its pipe may keep this process alive
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.once('exit', () => watchdog.kill('SIGKILL'));
  return child;
}

/** Whether a process runs: signal 0 only probes, and EPERM means alive under another user. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
