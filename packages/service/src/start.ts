import { randomBytes } from 'node:crypto';
import {
  describeError,
  requirePortsFree,
  startService as startServer,
  type Config,
  type RunningService,
  type StartOptions,
} from '@attestation-service/server';
import { dashboardMount } from './dashboard-part.ts';

export interface ServeParts {
  api: boolean;
  worker: boolean;
  /** The verification web app on VERIFY_PORT (packages/verify-web). */
  verify?: boolean;
}

export interface RunningStack extends RunningService {
  /** The verification app's URL as bound, when that part runs. */
  verifyUrl?: string;
}

/**
 * The service's parts in this process: the API with the account dashboard's pages under /dashboard/ and the worker
 * (the server's startService), and the verification app in front of them. `stop()` stops the app first, then the
 * server's parts in reverse order of their start.
 */
export async function startService(
  config: Config,
  opts: Omit<StartOptions, 'parts' | 'proxyToken'> & { parts?: ServeParts } = {},
): Promise<RunningStack> {
  const parts = opts.parts ?? { api: true, worker: true };
  // before the server's parts start the database and the chain: a busy port is said at once, with its setting
  if (parts.verify) await requirePortsFree([{ setting: 'VERIFY_PORT', host: config.host, port: config.verifyPort }]);
  // the verification app in this process reads the API for its visitors: this token lets their addresses through
  const proxyToken = parts.api && parts.verify ? randomBytes(24).toString('hex') : undefined;
  const mounts = parts.api ? [...(opts.mounts ?? []), dashboardMount()] : opts.mounts;
  const service = await startServer(config, {
    ...opts,
    parts: { api: parts.api, worker: parts.worker },
    proxyToken,
    mounts,
  });
  if (!parts.verify) return service;
  try {
    // loaded only where it runs: an API or worker process does not carry the app's modules
    const { startVerifyPart } = await import('./verify-part.ts');
    const { chain, windows, log } = service.infrastructure;
    const apiUrl = parts.api ? service.apiUrl : (config.verify.apiUrl ?? service.apiUrl);
    const verify = await startVerifyPart(
      config,
      { apiUrl, chain, attester: chain.account.address, windows, proxyToken },
      log,
    );
    const stop = async () => {
      await verify.stop().catch((error: unknown) => log.warn({ error: describeError(error) }, 'stop step failed'));
      await service.stop();
    };
    return { ...service, verifyUrl: verify.url, stop };
  } catch (error) {
    await service.stop();
    throw error;
  }
}
