// pnpm bench:hot — the hot paths beside their plain handlers, in place of their section of BENCHMARKS.md.
// BENCH_SECONDS sets each side's length, BENCH_ROUNDS the rounds.
import type { ChildProcess } from 'node:child_process';
import { measurePairs, renderPairs, setUpHotPaths } from './hot-paths.ts';
import { runSection } from './section.ts';

const duration = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);

await runSection('## Hot paths beside', async (makeDatabase) => {
  const children: ChildProcess[] = [];
  try {
    const setup = await setUpHotPaths(await makeDatabase('hot'), 100_000, children);
    const pairs = await measurePairs(setup, duration, rounds);
    return renderPairs(pairs, duration, rounds);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
  }
});
