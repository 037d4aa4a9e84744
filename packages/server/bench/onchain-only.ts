// pnpm bench:onchain — just the on-chain figures, in place of their section of BENCHMARKS.md. BENCH_SECONDS sets a
// run's length at 1 s blocks.
import { enterpriseKeys } from './keys.ts';
import { measureOnchain, renderOnchain } from './onchain.ts';
import { runSection } from './section.ts';

await runSection('## On-chain creates', async (makeDatabase) =>
  renderOnchain(
    await measureOnchain(
      makeDatabase,
      (url, count) => enterpriseKeys(url, count, 'bench-onchain'),
      Number(process.env.BENCH_SECONDS ?? 15),
    ),
  ),
);
