import { parseAccountRef, refusedAsFalse } from '../accounts/cli-account.ts';
import { ownerLinkOnOpen } from '../accounts/owner-link-cli.ts';
import { UsageError } from '../errors.ts';
import type { WithInfrastructure } from '../infrastructure.ts';
import { isPrefix, TIERS, type Tier } from './format.ts';
import { createKeyService, type KeySummary } from './service.ts';

function print(json: boolean, value: object, text: string): void {
  console.log(json ? JSON.stringify(value) : text);
}

// prefix, tier, account, name, created (ISO 8601 is 24 characters), revoked
const KEY_COLUMNS = [12, 10, 16, 16, 24, 0];
const keyRow = (cells: string[]) =>
  cells
    .map((cell, i) => cell.padEnd(KEY_COLUMNS[i]!))
    .join('  ')
    .trimEnd();

/** `keys list`: JSON lines, or a table with a header (NAME is the label given at `keys create --name`). */
function listKeys(list: KeySummary[], json: boolean): void {
  if (!json && list.length === 0) return void console.error('no keys');
  if (!json) console.log(keyRow(['PREFIX', 'TIER', 'ACCOUNT', 'NAME', 'CREATED', 'REVOKED']));
  for (const key of list)
    print(json, key, keyRow([key.prefix, key.tier, key.account, key.name ?? '-', key.createdAt, key.revokedAt ?? '']));
}

/**
 * `keys create --tier T [--account NAME|id:UUID] [--name LABEL] [--json]`, `keys list [--account NAME] [--json]`, `keys
 * revoke PREFIX12`: the operator's key management. Arguments are checked before the database is opened. Returns
 * false when the command failed (the CLI exits 1). A create that opened its account prints that account's owner
 * link too (accounts/owner-link-cli.ts), so the dashboard reaches it in one step.
 */
export async function keysCommand(
  withInfrastructure: WithInfrastructure,
  args: string[],
  flags: {
    tier?: string | undefined;
    account?: string | undefined;
    name?: string | undefined;
    json?: boolean | undefined;
  },
): Promise<boolean> {
  const [action, target] = args;
  const json = !!flags.json;
  if (action === 'create' && !TIERS.includes(flags.tier as Tier))
    throw new UsageError('keys create needs --tier free|pro|enterprise');
  if (action === 'revoke' && !isPrefix(target ?? ''))
    throw new UsageError('keys revoke needs the 12-hex-character key prefix');
  if (action !== 'create' && action !== 'list' && action !== 'revoke')
    throw new UsageError(`unknown keys command: ${action ?? '(none)'}`);
  const account = parseAccountRef(flags.account ?? 'default');
  return withInfrastructure(async (infra) => {
    const service = createKeyService(infra.db, infra.clock);
    if (action === 'create') {
      const created = await refusedAsFalse(() =>
        service.create({
          tier: flags.tier as Tier,
          account,
          ...(flags.name === undefined ? {} : { name: flags.name }),
        }),
      );
      if (!created) return false;
      const opened = created.opened ? ', opened now' : '';
      const added = created.opened
        ? await ownerLinkOnOpen(infra, { id: created.accountId, name: created.account })
        : { json: {}, note: '' };
      print(
        json,
        { ...created, ...added.json },
        `${created.key}\n(shown once: store it now; prefix ${created.prefix}, tier ${created.tier}, ` +
          `account ${created.account} (id ${created.accountId}${opened}))`,
      );
      if (!json && added.note) console.error(added.note);
    } else if (action === 'list') {
      listKeys(await service.list(flags.account), json);
    } else {
      const revoked = await service.revoke(target!);
      if (!revoked) {
        console.error(`attestation-service: no key with prefix ${target}`);
        return false;
      }
      print(json, revoked, `revoked ${revoked.prefix} at ${revoked.revokedAt}`);
    }
    return true;
  });
}
