import { UsageError } from '../errors.ts';
import type { WithInfrastructure } from '../infrastructure.ts';
import { verifyChains, type AccountsByName, type ChainReport } from './verify.ts';
import { plural } from '../plural.ts';

function line(report: ChainReport): string {
  if (!report.broken)
    return `${report.account}: intact, ${plural(report.entries, 'entry', 'entries')}, head ${report.head}`;
  const where = report.broken.entryId === null ? 'at the chain head' : `at entry ${report.broken.entryId}`;
  return `${report.account}: BROKEN ${where}: ${report.broken.reason} (${plural(report.entries, 'entry', 'entries')} verified before it)`;
}

/**
 * `attestation-service audit verify [--account NAME] [--json]`: walks each chain from genesis and prints one line
 * per account, naming the first broken link. Returns false when any chain is broken (the CLI exits 1). The accounts
 * come from `accountsByName` (the launcher's index.ts binds accounts/store.ts).
 */
export async function auditCommand(
  withInfrastructure: WithInfrastructure,
  args: string[],
  flags: { account?: string | undefined; json?: boolean | undefined },
  accountsByName: AccountsByName,
): Promise<boolean> {
  if (args[0] !== 'verify') throw new UsageError(`unknown audit command: ${args[0] ?? '(none)'}`);
  return withInfrastructure(async ({ db }) => {
    const reports = await verifyChains(db, accountsByName, flags.account);
    for (const report of reports) {
      const { broken, ...rest } = report;
      console.log(
        flags.json
          ? JSON.stringify({
              ...rest,
              intact: !broken,
              brokenAt: broken?.entryId ?? null,
              reason: broken?.reason ?? null,
            })
          : line(report),
      );
    }
    return reports.every((report) => !report.broken);
  });
}
