// pnpm bench:anchoring — just the anchoring figures: prints them and puts them in BENCHMARKS.md in place of the
// section a full `pnpm bench` wrote (appended when there is none).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { measureAnchoring, renderAnchoring } from './anchoring.ts';
import { benchDatabases } from './databases.ts';

const databases = benchDatabases(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
try {
  const section = renderAnchoring(await measureAnchoring((name) => databases.make(name)));
  console.log(section);
  const file = join(import.meta.dirname, '../../../BENCHMARKS.md');
  const current = await readFile(file, 'utf8').catch(() => '# Benchmarks\n');
  const start = current.indexOf('\n## Anchoring');
  const next = start === -1 ? -1 : current.indexOf('\n## ', start + 1);
  const updated =
    start === -1
      ? current.trimEnd() + '\n' + section
      : current.slice(0, start) + section + (next === -1 ? '' : current.slice(next));
  await writeFile(file, updated);
} finally {
  await databases.dropAll();
}
