import { Piscina } from 'piscina';
import type { SigningIdentity } from './identity.ts';
import type { SigningResult, SigningTask, SigningWorkerData } from './sign.worker.ts';

/**
 * A thread left idle this long exits, and the WebAssembly memory it grew for its largest asset (it never shrinks)
 * goes with it.
 */
const IDLE_EXIT_MS = 30_000;

export interface SigningPool {
  /**
   * A place for one asset, from its first body byte to its answer, or undefined when all are taken: the assets held
   * at once, and so the memory, are bounded before a byte is read.
   */
  admit(): (() => void) | undefined;
  /** Signs in a worker thread; the asset's bytes are moved there, not copied. */
  sign(task: SigningTask): Promise<SigningResult>;
  close(): Promise<void>;
}

/**
 * Up to `concurrency` threads sign, started when there is work; twice as many assets may be held, the others being
 * received or waiting their turn.
 */
export function startSigningPool(identity: SigningIdentity, concurrency: number): SigningPool {
  const pool = new Piscina<SigningTask, SigningResult>({
    filename: new URL('./sign.worker.ts', import.meta.url).href,
    minThreads: 0,
    maxThreads: concurrency,
    idleTimeout: IDLE_EXIT_MS,
    concurrentTasksPerWorker: 1,
    workerData: { identity } satisfies SigningWorkerData,
  });
  const places = concurrency * 2;
  let held = 0;
  return {
    admit() {
      if (held >= places) return undefined;
      held++;
      let released = false;
      return () => {
        if (!released) held--;
        released = true;
      };
    },
    sign: (task) => pool.run(task, { transferList: [task.bytes.buffer as ArrayBuffer] }),
    close: () => pool.close(),
  };
}
