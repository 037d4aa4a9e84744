import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { UsageError } from '../errors.ts';
import { accountNameKey, accountNameProblem, canonicalAccountName } from './account-name.ts';
import { findAccountById, findAccountByNameKey, insertAccount, type AccountRow } from './store.ts';

/** How the operator's CLI names an account: `--account NAME`, or `--account id:UUID` for its stable id. */
export type AccountRef = { id: string } | { name: string };

const ID_PREFIX = 'id:';

/** Reads `--account`: `id:` and a UUID is an id; anything else is a name (a name cannot hold `:`). */
export function parseAccountRef(text: string): AccountRef {
  if (!text.startsWith(ID_PREFIX)) return { name: text };
  const id = z.uuid().safeParse(text.slice(ID_PREFIX.length));
  if (!id.success) throw new UsageError(`--account ${text}: after "id:" comes the account's id, a UUID`);
  return { id: id.data.toLowerCase() };
}

/** The account a CLI command acted on, as its output names it. */
interface CliAccount {
  id: string;
  name: string;
  /** True when this command opened it. */
  opened: boolean;
}

/** A CLI command that cannot act on the account it names: printed as is, exit 1. */
class AccountRefused extends Error {}

/**
 * The account a CLI command acts on. By id: that account, whoever opened it. By name (NFKC, any case): the account
 * of that name if the CLI opened it; refused if a dashboard sign-up did (a stranger may have taken the name first:
 * the operator names it by id once they know whose it is); opened by the CLI when `open` and no account has it.
 */
export async function cliAccount(db: Db, ref: AccountRef, opts: { open: boolean }): Promise<CliAccount> {
  if ('id' in ref) {
    const found = await findAccountById(db, ref.id);
    if (!found) throw new AccountRefused(`no account with id ${ref.id}`);
    return { id: found.id, name: found.name, opened: false };
  }
  const key = accountNameKey(ref.name);
  const found = await findAccountByNameKey(db, key);
  if (found) return byName(found, ref.name);
  if (!opts.open) throw new AccountRefused(`no account named ${ref.name}`);
  const problem = accountNameProblem(ref.name);
  if (problem) throw new AccountRefused(`--account ${JSON.stringify(ref.name)}: ${problem}`);
  const created = await insertAccount(db, { name: canonicalAccountName(ref.name), nameKey: key, createdBy: 'cli' });
  if (created) return { id: created.id, name: created.name, opened: true };
  // another command opened it meanwhile: the same rule applies to it
  return byName((await findAccountByNameKey(db, key))!, ref.name);
}

function byName(found: AccountRow, asked: string): CliAccount {
  if (found.createdBy === 'dashboard')
    throw new AccountRefused(
      `the account named ${JSON.stringify(found.name)} (id ${found.id}) was opened in the dashboard, not by this CLI: ` +
        `to act on it, name it by its id: --account id:${found.id}` +
        (found.name === asked ? '' : ` (asked for ${JSON.stringify(asked)})`),
    );
  return { id: found.id, name: found.name, opened: false };
}

/** Runs a command's action; an account it may not act on is printed (exit 1) instead of thrown. */
export async function refusedAsFalse<T>(action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof AccountRefused)) throw error;
    console.error(`attestation-service: ${error.message}`);
    return undefined;
  }
}
