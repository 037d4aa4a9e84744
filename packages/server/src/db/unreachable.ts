import { ConfigError } from '../config.ts';
import { databaseLocation } from '../system/service-state.ts';

/** What PostgreSQL's and the network's refusals mean, by their codes, in the words of someone fixing a setting. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there (is PostgreSQL running, on that port?)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved right now',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  '28P01': 'the password was refused',
  '28000': 'the server refused this user',
  '3D000': 'the database does not exist',
};

/**
 * A first connection's failure as one line naming the setting (DATABASE_URL, or WORKER_DATABASE_URL), its host and
 * port, never its password; undefined for any other failure, which is passed on as it is.
 */
export function unreachableDatabase(error: unknown, databaseUrl: string, setting: string): ConfigError | undefined {
  const reason = connectionFailure(error);
  if (!reason) return undefined;
  return new ConfigError(`${setting}: cannot connect to ${databaseLocation(databaseUrl)}: ${reason}; check ${setting}`);
}

/** Why a connection failed, in those words, when its code is one of a setting's (undefined for any other). */
export function connectionFailure(error: unknown): string | undefined {
  const code = (error as { code?: string } | undefined)?.code;
  return code === undefined ? undefined : REASONS[code];
}
