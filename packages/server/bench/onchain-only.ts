// pnpm bench:onchain — just the on-chain figures: prints them and puts them in BENCHMARKS.md in place of the section
// a full `pnpm bench` wrote (appended when there is none). BENCH_SECONDS sets a run's length at 1 s blocks.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { benchDatabases } from './databases.ts';
import { enterpriseKeys } from './keys.ts';
import { measureOnchain, renderOnchain } from './onchain.ts';

const databases = benchDatabases(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
try {
  const figures = await measureOnchain(
    (name) => databases.make(name),
    (url, count) => enterpriseKeys(url, count, 'bench-onchain'),
    Number(process.env.BENCH_SECONDS ?? 15),
  );
  const section = renderOnchain(figures);
  console.log(section);
  const file = join(import.meta.dirname, '../../../BENCHMARKS.md');
  const current = await readFile(file, 'utf8').catch(() => '# Benchmarks\n');
  const start = current.indexOf('\n## On-chain creates');
  const next = start === -1 ? -1 : current.indexOf('\n## ', start + 1);
  const updated =
    start === -1
      ? current.trimEnd() + '\n' + section
      : current.slice(0, start) + section + (next === -1 ? '' : current.slice(next));
  await writeFile(file, updated);
} finally {
  await databases.dropAll();
}
