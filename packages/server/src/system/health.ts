import { AppError } from '../errors.ts';

/** One thing the service needs to be ready: answers `ok` or throws with the reason. */
export type ReadinessCheck = () => Promise<void>;

export type HealthService = ReturnType<typeof createHealthService>;

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout(check: ReadinessCheck): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
    check()
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
}

/** Liveness (the process answers) and readiness (every component it needs answers). */
export function createHealthService(checks: Record<string, ReadinessCheck>) {
  return {
    health(): { status: 'ok' } {
      return { status: 'ok' };
    },

    async ready(): Promise<{ status: 'ready'; components: Record<string, 'ok'> }> {
      const names = Object.keys(checks);
      const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name]!)));
      const components: Record<string, string> = {};
      names.forEach((name, i) => {
        components[name] = results[i]!.status === 'fulfilled' ? 'ok' : 'unavailable';
      });
      const failing = names.filter((name) => components[name] !== 'ok');
      if (failing.length > 0) {
        throw new AppError('NOT_READY', `Not ready: ${failing.join(', ')} unavailable.`, { components, failing });
      }
      return { status: 'ready', components: components as Record<string, 'ok'> };
    },
  };
}
