import { checkChainRpc } from './chain/reach.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { checkDatabase } from './db/doctor-check.ts';
import { runningEmbeddedPostgres } from './db/embedded-postgres.ts';
import { configuredFindings } from './doctor-settings.ts';
import { databaseMismatch, hasEmbeddedCluster, noDatabaseHere } from './system/command-service.ts';
import {
  checkReadiness,
  fail,
  info,
  ok,
  PROBE_TIMEOUT_MS,
  renderFindings,
  urlHost,
  within,
  type Finding,
} from './system/doctor.ts';
import { liveServiceState, type ServiceState } from './system/service-state.ts';

interface DoctorOptions {
  /** The environment the CLI runs with (after its .env file). */
  env: Record<string, string | undefined>;
  envFile?: string | undefined;
  json?: boolean | undefined;
}

/**
 * `doctor` (`config check`): what is configured, what answers (the database and its migrations, the chain, Redis,
 * the running service's /readyz), and what does not, each failure naming its setting. False when any failed.
 */
export async function doctorCommand(opts: DoctorOptions): Promise<boolean> {
  const findings = [info('.env', opts.envFile ?? 'none read (no .env here, ENV_FILE unset)')];
  try {
    const config = loadConfig(opts.env);
    const service = await liveServiceState(config.dataDir);
    findings.push(...configuredFindings(config, opts.env));
    const probes: Array<Promise<Finding | Finding[]>> = [databaseFinding(config, service)];
    probes.push(...chainFindings(config, service));
    if (config.redisUrl) probes.push(redisFinding(config.redisUrl));
    findings.push(...(await Promise.all(probes)).flat(), serviceFinding(config, service));
    if (service?.apiUrl) findings.push(await checkReadiness(service.apiUrl, service.pid));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    findings.push(fail('configuration', error.message));
  }
  const healthy = !findings.some((f) => f.status === 'fail');
  console.log(opts.json ? JSON.stringify({ ok: healthy, findings }) : renderFindings(findings));
  return healthy;
}

async function databaseFinding(config: Config, service: ServiceState | undefined): Promise<Finding | Finding[]> {
  if (config.databaseUrl) return checkDatabase(config.databaseUrl, 'DATABASE_URL');
  if (!(await hasEmbeddedCluster(config.dataDir)))
    return fail('database', noDatabaseHere(config.dataDir), 'DATA_DIR or DATABASE_URL');
  const running = runningEmbeddedPostgres(config.dataDir).catch(() => undefined);
  const url = await within(PROBE_TIMEOUT_MS, running, () => undefined);
  if (url) return checkDatabase(url, 'DATA_DIR');
  // the CLI starts it for a command; doctor starts nothing
  return service
    ? fail('database', `the embedded PostgreSQL in ${config.dataDir} is not running, but the service is`, 'its log')
    : ok('database', `an embedded cluster is in ${config.dataDir} (not running now: the service starts it)`);
}

function chainFindings(config: Config, service: ServiceState | undefined): Array<Promise<Finding>> {
  const { rpcUrls, chainId } = config.chain;
  if (rpcUrls.length > 0) return rpcUrls.map((url) => checkChainRpc(url, chainId, 'CHAIN_RPC_URL'));
  if (service?.devChain) return [checkChainRpc(service.devChain.rpcUrl, service.devChain.chainId, 'its log')];
  return [Promise.resolve(info('chain', 'the development chain runs only with the service: nothing to probe'))];
}

async function redisFinding(redisUrl: string): Promise<Finding> {
  const host = urlHost(redisUrl);
  const { Redis } = await import('ioredis');
  // one try, no reconnection: an unreachable Redis is a finding, not a retry loop
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return ok('redis', `${host} answers PING`);
  } catch (error) {
    const reason = String((error as Error).message).split('\n')[0];
    return fail('redis', `cannot reach ${host}: ${reason}`, 'REDIS_URL');
  } finally {
    redis.disconnect();
  }
}

function serviceFinding(config: Config, service: ServiceState | undefined): Finding {
  if (!service) return info('service', `none running with DATA_DIR=${config.dataDir} (no live service.json there)`);
  const mismatch = databaseMismatch(config, service);
  if (mismatch) return fail('service', mismatch, 'DATABASE_URL or DATA_DIR');
  const started = `pid ${service.pid}, started ${service.startedAt}`;
  return info('service', service.apiUrl ? `${started}, API on ${service.apiUrl}` : `${started}, a worker alone`);
}
