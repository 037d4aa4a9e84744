import { z } from 'zod';
import { UsageError } from '../errors.ts';
import type { CommandInfrastructure, WithInfrastructure } from '../infrastructure.ts';
import { createKeyService } from '../keys/service.ts';
import { upsertAccount } from '../keys/store.ts';
import { loadServiceSecrets } from '../system/service-secret.ts';
import { createAccountService, PLANS, type Plan } from './accounts.ts';
import { isRole, ROLES, type Role } from './roles.ts';
import { createPeopleServices } from './services.ts';

export interface AccountsFlags {
  account?: string | undefined;
  email?: string | undefined;
  role?: string | undefined;
  support?: boolean | undefined;
  json?: boolean | undefined;
}

const ACCOUNT_COLUMNS = [24, 10, 7, 0];
const accountRow = (cells: string[]) =>
  cells
    .map((cell, i) => cell.padEnd(ACCOUNT_COLUMNS[i]!))
    .join('  ')
    .trimEnd();

/** The invitations service: it seals links, so it needs SERVICE_SECRET (docs/operations.md, "Service secret"). */
async function invitationsOf(infra: CommandInfrastructure) {
  const keys = createKeyService(infra.db, infra.pool, infra.clock);
  return createPeopleServices({ ...infra, keys, secrets: await loadServiceSecrets(infra.config) }).invitations;
}

const accountsOf = (infra: CommandInfrastructure) =>
  createAccountService({ db: infra.db, clock: infra.clock, signup: infra.config.dashboard.signup });

/** The invitation a command line asks for, checked before the database is opened. */
function invitationOf(
  flags: AccountsFlags,
): { support: true; email: string } | { account: string; email: string; role: Role } {
  const email = z.email().safeParse(flags.email);
  if (!email.success) throw new UsageError('accounts invite needs --email with an email address');
  if (flags.support) {
    if (flags.account !== undefined || flags.role !== undefined)
      throw new UsageError('accounts invite --support takes --email only (the support team is in no account)');
    return { support: true, email: email.data };
  }
  if (!flags.account) throw new UsageError('accounts invite needs --account NAME (or --support)');
  if (!isRole(flags.role ?? '')) throw new UsageError(`accounts invite needs --role ${ROLES.join('|')}`);
  return { account: flags.account, email: email.data, role: flags.role as Role };
}

/**
 * `accounts invite --account NAME --email E --role R [--json]` (the account is opened if it does not exist yet),
 * `accounts invite --support --email E [--json]`, `accounts set-plan NAME free|pro|enterprise [--json]` and `accounts
 * list [--json]`: the operator's way to let people into the dashboard without e-mail. Arguments are checked before
 * the database is opened. Returns false when the command failed (the CLI exits 1).
 */
export async function accountsCommand(
  withInfrastructure: WithInfrastructure,
  args: string[],
  flags: AccountsFlags,
): Promise<boolean> {
  const [action, name, plan] = args;
  const json = !!flags.json;
  if (action === 'invite') {
    const wanted = invitationOf(flags);
    return withInfrastructure(async (infra) => {
      const invitations = await invitationsOf(infra);
      const link =
        'support' in wanted
          ? await invitations.inviteSupport(wanted.email)
          : await invitations.inviteMember({
              accountId: (await upsertAccount(infra.db, wanted.account)).id,
              email: wanted.email,
              role: wanted.role,
              actor: null,
              origin: null,
            });
      const what = 'support' in wanted ? 'the support team' : `account ${wanted.account} as ${wanted.role}`;
      console.log(
        json
          ? JSON.stringify({ url: link.url, expiresAt: link.expiresAt })
          : `${link.url}\n(for ${wanted.email}: joins ${what}; one use, valid until ${link.expiresAt})`,
      );
      return true;
    });
  }
  if (action === 'set-plan') {
    if (!name || !PLANS.includes(plan as Plan))
      throw new UsageError(`accounts set-plan needs the account's name and a plan: ${PLANS.join('|')}`);
    return withInfrastructure(async (infra) => {
      const accounts = accountsOf(infra);
      const accountId = await accounts.idOf(name);
      if (!accountId) {
        console.error(`attestation-service: no account named ${name}`);
        return false;
      }
      await accounts.setPlan(accountId, plan as Plan);
      console.log(json ? JSON.stringify({ account: name, plan }) : `account ${name}: plan ${plan}`);
      return true;
    });
  }
  if (action === 'list') {
    return withInfrastructure(async (infra) => {
      const list = await accountsOf(infra).list();
      if (!json && list.length === 0) console.error('no accounts');
      else if (!json) console.log(accountRow(['NAME', 'PLAN', 'MEMBERS', 'CREATED']));
      for (const a of list)
        console.log(json ? JSON.stringify(a) : accountRow([a.name, a.plan, String(a.members), a.createdAt]));
      return true;
    });
  }
  throw new UsageError(`unknown accounts command: ${action ?? '(none)'}`);
}
