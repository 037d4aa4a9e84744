import { randomBytes } from 'node:crypto';
import { link, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { ConfigError } from '../config.ts';

/**
 * Writes `content` to `path` with mode 0600 unless a file is there already, atomically: written aside, then linked
 * into place, so two processes starting at once both read the one complete file. Returns what `path` holds.
 */
export async function createPrivateFileOnce(path: string, content: string): Promise<string> {
  const fresh = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(fresh, content, { flag: 'wx', mode: 0o600 });
  try {
    await link(fresh, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(fresh);
  }
  return readFile(path, 'utf8');
}

/** Refuses a file that other users can read, naming the fix. */
export async function requirePrivate(path: string): Promise<void> {
  const mode = (await stat(path)).mode & 0o777;
  if (mode & 0o077)
    throw new ConfigError(`${path} is readable by other users (mode ${mode.toString(8)}): run chmod 600 on it`);
}
