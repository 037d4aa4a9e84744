import { Logger as WorkerLogger, runMigrations } from 'graphile-worker';
import { z } from 'zod';
import { UsageError } from '../errors.ts';
import type { CommandInfrastructure, WithInfrastructure } from '../infrastructure.ts';
import { bodySealer } from '../mail/seal.ts';
import { createMailService } from '../mail/service.ts';
import { loadServiceSecrets } from '../system/service-secret.ts';
import { cliAccount, parseAccountRef, refusedAsFalse, type AccountRef } from '../accounts/cli-account.ts';
import { cliOwnerLink, ownerLinkOnOpen, ownerLinkUse } from '../accounts/owner-link-cli.ts';
import { isRole, ROLES, type Role } from '../accounts/roles.ts';
import { createAccountService, PLANS, type Plan } from '../accounts/service.ts';
import { createAccountServices } from '../accounts/services.ts';

interface AccountsFlags {
  account?: string | undefined;
  email?: string | undefined;
  role?: string | undefined;
  support?: boolean | undefined;
  'no-mail'?: boolean | undefined;
  json?: boolean | undefined;
}

const ACCOUNT_COLUMNS = [24, 10, 7, 0];
const accountRow = (cells: string[]) =>
  cells
    .map((cell, i) => cell.padEnd(ACCOUNT_COLUMNS[i]!))
    .join('  ')
    .trimEnd();

/**
 * The invitations service: it seals links, so it needs SERVICE_SECRET (docs/operations.md, "Service secret"); its
 * mail is queued for the worker, whose job tables a database never served yet lacks.
 */
async function invitationsOf(infra: CommandInfrastructure) {
  const secrets = await loadServiceSecrets(infra.config);
  const mail = createMailService({ ...infra, mode: infra.config.mail.mode, sealer: bodySealer(secrets) });
  if (mail.on) await runMigrations({ pgPool: infra.pool, logger: new WorkerLogger(() => () => undefined) });
  return createAccountServices({ ...infra, secrets, mail }).invitations;
}

/** What the command says of the mail, when it was asked for and mail is on: `mailed` in JSON, a note in text. */
function mailReport(infra: CommandInfrastructure, flags: AccountsFlags, mailed: boolean, email: string) {
  if (flags['no-mail'] || infra.config.mail.mode === 'off') return { json: {}, note: '' };
  return {
    json: { mailed },
    note: mailed ? `; mailed to ${email}` : '; not mailed: the hourly mail bound was reached',
  };
}

const accountsOf = (infra: CommandInfrastructure) =>
  createAccountService({ db: infra.db, clock: infra.clock, signup: infra.config.dashboard.signup });

/** The invitation a command line asks for, checked before the database is opened. */
function invitationOf(
  flags: AccountsFlags,
): { support: true; email: string } | { account: AccountRef; email: string; role: Role } {
  const email = z.email().safeParse(flags.email);
  if (!email.success) throw new UsageError('accounts invite needs --email with an email address');
  if (flags.support) {
    if (flags.account !== undefined || flags.role !== undefined)
      throw new UsageError('accounts invite --support takes --email only (the support team is in no account)');
    return { support: true, email: email.data };
  }
  if (!flags.account) throw new UsageError('accounts invite needs --account NAME (or --support)');
  if (!isRole(flags.role ?? '')) throw new UsageError(`accounts invite needs --role ${ROLES.join('|')}`);
  return { account: parseAccountRef(flags.account), email: email.data, role: flags.role as Role };
}

/**
 * `accounts owner-link --account NAME|id:UUID [--json]`: a link that makes whoever opens it first the owner of an
 * account nobody owns yet; refused (exit 1) when it has an owner, who is the one to invite people.
 */
async function ownerLinkCommand(withInfrastructure: WithInfrastructure, flags: AccountsFlags): Promise<boolean> {
  if (!flags.account) throw new UsageError('accounts owner-link needs --account NAME (or id:UUID)');
  const ref = parseAccountRef(flags.account);
  return withInfrastructure(async (infra) => {
    const account = await refusedAsFalse(() => cliAccount(infra.db, ref, { open: false }));
    if (!account) return false;
    const link = await cliOwnerLink(infra, account.id);
    if (!link) {
      console.error(
        `attestation-service: account ${account.name} (id ${account.id}) has an owner already; to add one, ` +
          `\`attestation-service accounts invite --account ${flags.account} --email E --role owner\``,
      );
      return false;
    }
    const { url, expiresAt } = link;
    console.log(
      flags.json
        ? JSON.stringify({ url, expiresAt, account: account.name, accountId: account.id })
        : `${url}\n${ownerLinkUse(account, link)}`,
    );
    return true;
  });
}

/**
 * `accounts invite --account NAME|id:UUID --email E --role R [--json]` (a name no account has is opened; one opened
 * in the dashboard is reached by id only: accounts/cli-account.ts), `accounts invite --support --email E [--json]`,
 * `accounts set-plan NAME|id:UUID free|pro|enterprise [--json]`, `accounts owner-link` and `accounts list [--json]`:
 * the operator's way to let people into the dashboard, the link mailed too unless --no-mail (an account the invite
 * opens gets an owner link too, unless the invitation is an owner's). Arguments are checked before the database is
 * opened. Returns false when the command failed (the CLI exits 1).
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
    const mail = !flags['no-mail'];
    return withInfrastructure(async (infra) => {
      const invitations = await invitationsOf(infra);
      if ('support' in wanted) {
        const link = await invitations.inviteSupport(wanted.email, { mail });
        const report = mailReport(infra, flags, link.mailed, wanted.email);
        console.log(
          json
            ? JSON.stringify({ url: link.url, expiresAt: link.expiresAt, ...report.json })
            : `${link.url}\n(for ${wanted.email}: joins the support team; one use, ` +
                `valid until ${link.expiresAt}${report.note})`,
        );
        return true;
      }
      const account = await refusedAsFalse(() => cliAccount(infra.db, wanted.account, { open: true }));
      if (!account) return false;
      const { email, role } = wanted;
      const invite = { accountId: account.id, email, role, actor: null, origin: null, mail };
      const link = await invitations.inviteMember(invite);
      const opened = account.opened ? ', opened now' : '';
      const { url, expiresAt } = link;
      const report = mailReport(infra, flags, link.mailed, email);
      // a new account's first member other than an owner: the owner link is how someone comes to own it
      const owner = account.opened && role !== 'owner' ? await ownerLinkOnOpen(infra, account) : undefined;
      console.log(
        json
          ? JSON.stringify({
              url,
              expiresAt,
              account: account.name,
              accountId: account.id,
              ...report.json,
              ...owner?.json,
            })
          : `${link.url}\n(for ${email}: joins account ${account.name} (id ${account.id}${opened}) as ${role}; ` +
              `one use, valid until ${link.expiresAt}${report.note})`,
      );
      if (!json && owner?.note) console.error(owner.note);
      return true;
    });
  }
  if (action === 'owner-link') return ownerLinkCommand(withInfrastructure, flags);
  if (action === 'set-plan') {
    if (!name || !PLANS.includes(plan as Plan))
      throw new UsageError(`accounts set-plan needs the account's name (or id:UUID) and a plan: ${PLANS.join('|')}`);
    const ref = parseAccountRef(name);
    return withInfrastructure(async (infra) => {
      const account = await refusedAsFalse(() => cliAccount(infra.db, ref, { open: false }));
      if (!account) return false;
      await accountsOf(infra).setPlan(account.id, plan as Plan);
      console.log(
        json
          ? JSON.stringify({ account: account.name, accountId: account.id, plan })
          : `account ${account.name} (id ${account.id}): plan ${plan}`,
      );
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
