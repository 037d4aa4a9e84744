// pnpm bench:c2pa — the Content Credentials section of BENCHMARKS.md, in place. BENCH_SECONDS sets each row's length.
import { measureContentCredentials, renderContentCredentials } from './content-credentials.ts';
import { runSection } from './section.ts';

await runSection('## Content Credentials', async (makeDatabase) =>
  renderContentCredentials(await measureContentCredentials(makeDatabase)),
);
