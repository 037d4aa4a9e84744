// pnpm bench:check: a short run of the hot paths beside their plain handlers and of the relayer's capacity, failing
// when a same-run ratio falls below its floor in bench/floors.json. CI runs it (./dev test), so a regression of a hot
// path is caught where it lands. BENCH_SECONDS (default 5) and BENCH_ROUNDS (default 3) set the pairs' runs. A pair
// below its floor is measured once more before it fails: on a shared two-core machine a whole run of one side can
// come out a third slower (seen once in five runs of one tree in a day), and a regression fails both runs.
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { measureCapacity } from './capacity.ts';
import { benchDatabases, postgresServer } from './databases.ts';
import { measurePairs, setUpHotPaths, type Pair } from './hot-paths.ts';

const duration = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const { floors } = JSON.parse(await readFile(join(import.meta.dirname, 'floors.json'), 'utf8')) as {
  floors: Record<string, number>;
};

const floorOf = (name: string): number => {
  const floor = floors[name];
  if (floor === undefined) throw new Error(`bench/floors.json has no floor for "${name}"`);
  return floor;
};

const server = await postgresServer();
const databases = benchDatabases(server.url);
const children: ChildProcess[] = [];
const rows: Array<{ name: string; ratio: number; detail: string }> = [];
try {
  const setup = await setUpHotPaths(await databases.make('check'), 100_000, children);
  const detail = (pair: Pair) =>
    `${pair.service.requestsPerSecond} req/s against ${pair.plain.requestsPerSecond}, p99 ${pair.service.p99} ms`;
  const pairs = await measurePairs(setup, duration, rounds);
  const below = new Set(pairs.filter((pair) => pair.ratio < floorOf(pair.name)).map((pair) => pair.name));
  const again = below.size > 0 ? await measurePairs(setup, duration, rounds, below) : [];
  for (const pair of pairs) {
    const second = again.find((other) => other.name === pair.name);
    const best = second && second.ratio > pair.ratio ? second : pair;
    rows.push({
      name: pair.name,
      ratio: best.ratio,
      detail: second
        ? `${detail(best)}; measured twice: ${pair.ratio.toFixed(2)}, then ${second.ratio.toFixed(2)}`
        : detail(pair),
    });
  }
  for (const child of children.splice(0)) child.kill('SIGTERM');
  const capacity = await measureCapacity(await databases.make('check_capacity'));
  rows.push({
    name: 'relayer capacity: block share',
    ratio: capacity.blockShare,
    detail: `${capacity.createsPerSecond} creates/s, wall share ${capacity.wallShare}, p50 ${capacity.p50} ms, ${capacity.failed} failed`,
  });
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  await databases.dropAll().catch(() => undefined);
  await server.close();
}

let failed = 0;
console.log('| row | ratio | floor | |\n|---|---:|---:|---|');
for (const row of rows) {
  const floor = floorOf(row.name);
  const ok = row.ratio >= floor;
  if (!ok) failed++;
  console.log(
    `| ${row.name} | ${row.ratio.toFixed(2)} | ${floor} | ${ok ? 'ok' : 'BELOW THE FLOOR'} (${row.detail}) |`,
  );
}
if (failed > 0) {
  console.error(`bench:check: ${failed} ratio(s) below their floor (bench/floors.json)`);
  process.exitCode = 1;
} else console.log('bench:check: every ratio at or above its floor');
