import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '@attestation-service/server';

/**
 * Reads the settings of `.env` in the current directory (or of the file ENV_FILE names) into `env`, a variable
 * already set winning over the file's, so `./dev start` and `./dev cli` in one directory share one configuration.
 * Returns the file's absolute path, or undefined when there is none; ENV_FILE naming a file that cannot be read stops.
 */
export function loadEnvFile(env: Record<string, string | undefined>, cwd: string): string | undefined {
  const named = env.ENV_FILE || undefined;
  const path = resolve(cwd, named ?? '.env');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (named === undefined && code === 'ENOENT') return undefined;
    throw new ConfigError(`${named === undefined ? '.env' : `ENV_FILE=${named}`}: cannot read ${path} (${code})`);
  }
  for (const [name, value] of Object.entries(parseEnv(text))) if (env[name] === undefined) env[name] = value;
  return path;
}
