import { availableParallelism } from 'node:os';
import { hashPassword, verifyPassword } from 'better-auth/crypto';

/**
 * better-auth's scrypt (node:crypto, in libuv's thread pool) with at most `slots` hashes at once, the rest waiting in
 * turn. Left alone, four hashes run together and take every core of a small machine, so /healthz and every other
 * client's request wait on them: a flood of sign-ups or sign-ins (open sign-up hashes a known address's password too,
 * to answer it in the same time as an unknown one) would slow everyone. The default leaves the event loop a core.
 */
export function boundedPasswordHashing(slots = Math.max(1, availableParallelism() - 1)) {
  const inTurn = turns(slots);
  return {
    hash: (password: string) => inTurn(() => hashPassword(password)),
    verify: (data: { hash: string; password: string }) => inTurn(() => verifyPassword(data)),
  };
}

/** Runs the work it is given at most `slots` at a time, the rest in the order they came. */
export function turns(slots: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await work();
    } finally {
      // the slot passes to the next in line, or is given back
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
