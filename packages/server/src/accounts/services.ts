import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import type { ServiceSecrets } from '../system/service-secret.ts';
import { createInvitationService, type InvitationMail, type InvitationService } from './invitations.ts';
import { createMemberService, type MemberService } from './members.ts';
import { createAccountService, type AccountService } from './service.ts';
import { createStandingService, type StandingService } from './standing.ts';

/** Accounts and their people: what the dashboard's procedures, support and the operator's CLI change them with. */
export interface AccountServices {
  accounts: AccountService;
  invitations: InvitationService;
  members: MemberService;
  /** Whether a member may mint keys and invite: a confirmed address, or a vouched account. */
  standing: StandingService;
}

/**
 * Builds the account services (the API's, and the CLI's commands); `secrets` seal invitation tokens. The day's
 * counts of openings and invitation mails are the caller's (limits/): the CLI counts none (the operator is not
 * capped).
 */
export function createAccountServices(deps: {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  secrets: ServiceSecrets;
  mail: InvitationMail;
  /** Counts an opening against its client network's day; throws when the day is full. */
  limitOpenings?: (ip: string) => Promise<void>;
  /** Counts a member's invitation mail; throws past a day's cap. */
  limitInvitationMail?: (sender: { accountId: string; userId: string }) => Promise<void>;
}): AccountServices {
  const { config, db, clock, log } = deps;
  return {
    accounts: createAccountService({
      db,
      clock,
      signup: config.dashboard.signup,
      caps: config.dashboard.accountCaps,
      limitOpenings: deps.limitOpenings,
    }),
    invitations: createInvitationService({
      db,
      clock,
      log,
      publicBaseUrl: config.publicBaseUrl,
      secrets: deps.secrets,
      mail: deps.mail,
      limitInvitationMail: deps.limitInvitationMail,
    }),
    members: createMemberService({ db, clock }),
    standing: createStandingService(db),
  };
}
