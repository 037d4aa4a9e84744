// pnpm bench:dashboard — just the dashboard figures, in place of their section of BENCHMARKS.md.
import { measureDashboard, renderDashboard } from './dashboard.ts';
import { runSection } from './section.ts';

await runSection('## Dashboard', async (makeDatabase) => renderDashboard(await measureDashboard(makeDatabase)));
