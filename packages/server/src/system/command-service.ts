import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config.ts';
import {
  databaseIdentity,
  describeDatabase,
  liveServiceState,
  sameDatabase,
  type ServiceState,
} from './service-state.ts';

/** Whether DATA_DIR holds an initialised embedded cluster (what a `serve` with this DATA_DIR left there). */
export function hasEmbeddedCluster(dataDir: string): Promise<boolean> {
  return access(join(dataDir, 'postgres', 'PG_VERSION')).then(
    () => true,
    () => false,
  );
}

/** One line saying that the service running in DATA_DIR uses another database than this environment names. */
export function databaseMismatch(config: Config, service: ServiceState): string | undefined {
  const mine = databaseIdentity(config);
  if (sameDatabase(mine, service.database)) return undefined;
  const fix =
    mine.kind === 'url'
      ? "unset DATABASE_URL, or set it to the service's"
      : "set DATABASE_URL to the service's (its .env has it)";
  return (
    `the service running with DATA_DIR=${config.dataDir} (pid ${service.pid}) uses ${describeDatabase(service.database)}, ` +
    `but this command would use ${describeDatabase(mine)}: ${fix}`
  );
}

/** One line saying that no service has run with this DATA_DIR, so there is no database for a command there. */
export function noDatabaseHere(dataDir: string): string {
  return (
    `no service has run with DATA_DIR=${dataDir} (no database there): run the command from the service's ` +
    `directory, set DATA_DIR to the service's, or set DATABASE_URL`
  );
}

/**
 * The config a CLI command runs with: the database of the service it belongs to, never a new one. Refuses (a
 * ConfigError, one line) a DATA_DIR where no service ever ran, unless `create` (`migrate --create`), and a database
 * other than the live service's. Links (`accounts invite`) use the live service's public addresses unless `given`,
 * the command's own environment (not the .env it shares with the service), names others (PUBLIC_BASE_URL or PORT;
 * VERIFY_BASE_URL or VERIFY_PORT).
 */
export async function commandConfig(
  config: Config,
  given: Record<string, string | undefined>,
  opts: { create?: boolean } = {},
): Promise<Config> {
  const service = await liveServiceState(config.dataDir);
  const mismatch = service && databaseMismatch(config, service);
  if (mismatch) throw new ConfigError(mismatch);
  if (!config.databaseUrl && !opts.create && !(await hasEmbeddedCluster(config.dataDir)))
    throw new ConfigError(`${noDatabaseHere(config.dataDir)} (\`migrate --create\` makes a new one)`);
  if (!service) return config;
  const set = (name: string) => given[name] !== undefined && given[name] !== '';
  return {
    ...config,
    publicBaseUrl: set('PUBLIC_BASE_URL') || set('PORT') ? config.publicBaseUrl : service.publicBaseUrl,
    verifyBaseUrl: set('VERIFY_BASE_URL') || set('VERIFY_PORT') ? config.verifyBaseUrl : service.verifyBaseUrl,
  };
}
