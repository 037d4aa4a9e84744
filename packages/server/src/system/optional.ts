import { createRequire } from 'node:module';
import { ConfigError } from '../config.ts';

const require = createRequire(import.meta.url);

/**
 * The embedded PostgreSQL and anvil are development tools (about 100 MB), development dependencies that a production
 * install (`pnpm install --prod`, the image) leaves out; a process that would start one without it stops with one
 * line saying what to set.
 */
export function requireOptional(pkg: string, setting: string, what: string): void {
  try {
    require.resolve(`${pkg}/package.json`);
  } catch (error) {
    // a package that does not export its manifest is installed all the same
    if ((error as { code?: string }).code !== 'MODULE_NOT_FOUND') return;
    throw new ConfigError(
      `${setting} is not set and ${what} (development dependency ${pkg}) is not in this install; set ${setting}`,
    );
  }
}
