import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { loadServiceSecrets } from '../system/service-secret.ts';
import { invitationIssuer, type InvitationLink } from './invitation-issue.ts';
import { issueOwnerLink } from './owner-link.ts';

/** What a CLI command is handed, as far as an owner link needs it. */
interface LinkInfrastructure {
  db: Db;
  clock: Clock;
  config: Config;
}

interface NamedAccount {
  id: string;
  name: string;
}

/**
 * The owner link of an account nobody owns yet, as the CLI makes it (no mail: it is bound to no address); undefined
 * when the account has an owner. It is sealed, so SERVICE_SECRET applies (docs/operations.md, "Service secret").
 */
export async function cliOwnerLink(infra: LinkInfrastructure, accountId: string) {
  const secrets = await loadServiceSecrets(infra.config);
  const issuer = invitationIssuer({ clock: infra.clock, publicBaseUrl: infra.config.publicBaseUrl, secrets });
  return issueOwnerLink({ db: infra.db, clock: infra.clock, issuer }, accountId);
}

/** What the link does, in the words the CLI prints under it. */
export const ownerLinkUse = (account: NamedAccount, link: InvitationLink) =>
  `(whoever opens it first becomes the owner of account ${account.name} (id ${account.id}) in the dashboard, ` +
  `with its keys; one use, valid until ${link.expiresAt})`;

/**
 * After a CLI command opened `account`: its owner link, so the dashboard reaches it in one step. `json` holds
 * `ownerLink` for --json output; `note` is what text output adds on stderr. The command's own work is done and
 * printed whatever happens here (a key is shown once), so a failure is only reported, with the way to retry.
 */
export async function ownerLinkOnOpen(
  infra: LinkInfrastructure,
  account: NamedAccount,
): Promise<{ json: { ownerLink?: { url: string; expiresAt: string } | null }; note: string }> {
  try {
    const link = await cliOwnerLink(infra, account.id);
    // an owner joined between the open and now: they invite people, no link is needed
    if (!link) return { json: {}, note: '' };
    return {
      json: { ownerLink: { url: link.url, expiresAt: link.expiresAt } },
      note: `dashboard owner link: ${link.url}\n${ownerLinkUse(account, link)}`,
    };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    console.error(
      `attestation-service: no owner link made for account ${account.name} (${why}); make one with ` +
        `\`attestation-service accounts owner-link --account id:${account.id}\``,
    );
    return { json: { ownerLink: null }, note: '' };
  }
}
