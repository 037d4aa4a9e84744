// pnpm bench:capacity [TREE]: the relayer's capacity run, three times (BENCH_RUNS), in place of its section of
// BENCHMARKS.md; with TREE (another checkout with its dependencies installed) it measures that tree's service and
// only prints, which is how a regression is bisected.
import { resolve } from 'node:path';
import { benchDatabases, postgresServer } from './databases.ts';
import { measureCapacity, renderCapacity, THIS_TREE, type CapacityFigure } from './capacity.ts';
import { runSection } from './section.ts';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const tree = process.argv[2] ? resolve(process.argv[2]) : THIS_TREE;

async function measureAll(makeDatabase: (name: string) => Promise<string>): Promise<CapacityFigure[]> {
  const figures: CapacityFigure[] = [];
  for (let i = 0; i < runs; i++) {
    figures.push(await measureCapacity(await makeDatabase(`capacity_${i}`), { tree }));
    console.error(JSON.stringify(figures.at(-1)));
  }
  return figures;
}

if (tree === THIS_TREE) {
  await runSection('## Relayer capacity', async (makeDatabase) => renderCapacity(await measureAll(makeDatabase)));
} else {
  const server = await postgresServer();
  const databases = benchDatabases(server.url);
  try {
    console.log(renderCapacity(await measureAll((name) => databases.make(name))));
  } finally {
    await databases.dropAll();
    await server.close();
  }
}
