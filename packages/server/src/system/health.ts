import { AppError } from '../errors.ts';

/** One thing the service needs to be ready: answers `ok` or throws with the reason. */
export type ReadinessCheck = () => Promise<void>;

/** How a part the service can serve without stands: `degraded` works less well, `unknown` cannot be told now. */
export type ComponentState = 'ok' | 'degraded' | 'unknown';

/** Parts the service serves without (the chain, the relayer's funds), with a reason for each that is not `ok`. */
export interface ComponentReport {
  components: Record<string, ComponentState>;
  reasons: Record<string, string>;
}

/** Reads such parts' last known state without waiting on anything: liveness must answer at once. */
type DegradedCheck = () => ComponentReport;

interface Health {
  status: 'ok' | 'degraded';
  components: Record<string, ComponentState>;
  reasons: Record<string, string>;
}

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

/**
 * Liveness with what is degraded (`health`: always answers; the chain and the relayer's funds are named here) and
 * readiness (`ready`: every check in `checks` answers, i.e. this replica can serve its traffic).
 */
export function createHealthService(checks: Record<string, ReadinessCheck>, given: DegradedCheck[] = []) {
  const degraded = [...given];
  return {
    /** Adds a part started after the service was built (the job runner of an all-in-one `serve`). */
    report(check: DegradedCheck): void {
      degraded.push(check);
    },

    health(): Health {
      const report: ComponentReport = { components: {}, reasons: {} };
      for (const read of degraded) {
        const { components, reasons } = read();
        Object.assign(report.components, components);
        Object.assign(report.reasons, reasons);
      }
      const ok = Object.values(report.components).every((state) => state === 'ok');
      return { status: ok ? 'ok' : 'degraded', ...report };
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
