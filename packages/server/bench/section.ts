import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { benchDatabases } from './databases.ts';

const BENCHMARKS = join(import.meta.dirname, '../../../BENCHMARKS.md');

/**
 * One section of BENCHMARKS.md measured on its own (`pnpm bench:<part>`): prints it and puts it in place of the
 * section a full `pnpm bench` wrote under the same heading (appended when there is none).
 */
export async function runSection(
  heading: string,
  measure: (makeDatabase: (name: string) => Promise<string>) => Promise<string>,
): Promise<void> {
  const databases = benchDatabases(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  try {
    const section = await measure((name) => databases.make(name));
    console.log(section);
    const current = await readFile(BENCHMARKS, 'utf8').catch(() => '# Benchmarks\n');
    const start = current.indexOf(`\n${heading}`);
    const next = start === -1 ? -1 : current.indexOf('\n## ', start + 1);
    const updated =
      start === -1
        ? current.trimEnd() + '\n' + section
        : current.slice(0, start) + section + (next === -1 ? '' : current.slice(next));
    await writeFile(BENCHMARKS, updated);
  } finally {
    await databases.dropAll();
  }
}
