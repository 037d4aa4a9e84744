// pnpm bench:audit — just the audit export figures, in place of their section of BENCHMARKS.md.
import { measureAuditExport, renderAuditExport } from './audit-export.ts';
import { runSection } from './section.ts';

await runSection('## Audit export', async (makeDatabase) =>
  renderAuditExport(await measureAuditExport(await makeDatabase('audit'), Number(process.env.AUDIT_ROWS ?? 1_000_000))),
);
