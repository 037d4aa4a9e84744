import { onTestFailed } from 'vitest';
import { createLogger, type Logger } from '../../src/log.ts';

/**
 * A debug logger that keeps the last `keep` lines in memory, and a way to mark a test's steps: when the test that
 * called `showOnFailure` fails (a timeout too), its steps with their times and the service's last lines are printed.
 * For tests whose failures are rare and depend on timing, where the service's own account is the only witness.
 */
export function recordedLog(keep = 400): { log: Logger; step(name: string): void; showOnFailure(): void } {
  const lines: string[] = [];
  const steps: string[] = [];
  let started = Date.now();
  const log = createLogger('debug', {
    write(line: string) {
      if (line.includes('"msg":"Spawned"')) return; // one per worker slot at start: 64 lines that say nothing
      lines.push(line.trimEnd());
      if (lines.length > keep) lines.shift();
    },
  });
  return {
    log,
    step: (name) => void steps.push(`+${Date.now() - started} ms ${name}`),
    showOnFailure() {
      started = Date.now();
      steps.length = 0;
      onTestFailed(() => {
        console.error(
          `steps:\n${steps.join('\n')}\nthe service's last ${lines.length} log lines:\n${lines.join('\n')}`,
        );
      });
    },
  };
}
