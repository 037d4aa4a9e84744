import { createPool, pgSql } from '../db/sql.ts';
import { verifyChains, type ChainReport } from './verify.ts';
import { plural } from '../plural.ts';

function line(report: ChainReport): string {
  if (!report.broken) return `${report.account}: intact, ${plural(report.entries, 'entry', 'entries')}, head ${report.head}`;
  const where = report.broken.entryId === null ? 'at the chain head' : `at entry ${report.broken.entryId}`;
  return `${report.account}: BROKEN ${where}: ${report.broken.reason} (${plural(report.entries, 'entry', 'entries')} verified before it)`;
}

/**
 * `attestation-service audit verify [--account NAME] [--json]`: walks each chain from genesis and prints one line
 * per account, naming the first broken link. Resolves false when any chain is broken (the CLI exits 1).
 */
export async function auditVerify(databaseUrl: string, flags: { account?: string | undefined; json?: boolean | undefined }): Promise<boolean> {
  const pool = createPool(databaseUrl, 1);
  try {
    const reports = await verifyChains(pgSql(pool), flags.account);
    for (const report of reports) {
      const { broken, ...rest } = report;
      console.log(flags.json ? JSON.stringify({ ...rest, intact: !broken, brokenAt: broken?.entryId ?? null, reason: broken?.reason ?? null }) : line(report));
    }
    return reports.every((report) => !report.broken);
  } finally {
    await pool.end();
  }
}
