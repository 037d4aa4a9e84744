import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';

/** Steps that undo what a start opened, run in reverse order of their opening. */
export interface Teardown {
  push(step: () => Promise<void>): void;
  /** Runs every step once, last opened first; a failing step is logged and the next still runs. */
  run(): Promise<void>;
}

/** A stop that never leaves half the service open because one step failed. */
export function createTeardown(log: Logger): Teardown {
  const steps: Array<() => Promise<void>> = [];
  return {
    push: (step) => void steps.push(step),
    async run() {
      for (const undo of steps.reverse().splice(0)) {
        await undo().catch((error: unknown) => log.warn({ error: describeError(error) }, 'stop step failed'));
      }
    },
  };
}
