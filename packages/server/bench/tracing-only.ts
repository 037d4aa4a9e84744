// pnpm bench:tracing — the cost of tracing, off and on: prints the section and puts it in BENCHMARKS.md.
import { runSection } from './section.ts';
import { measureTracing, renderTracing } from './tracing.ts';

const duration = Number(process.env.BENCH_SECONDS ?? 10);
await runSection('## Tracing', async (makeDatabase) => renderTracing(await measureTracing(makeDatabase, duration)));
