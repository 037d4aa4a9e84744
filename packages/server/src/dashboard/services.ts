import type { AccountAttestations } from '../attestations/account-list.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { MemberKeyService } from '../keys/member-keys.ts';
import type { KeyService } from '../keys/service.ts';
import type { Logger } from '../log.ts';
import type { WindowStore } from '../limits/sliding-window.ts';
import type { MailService } from '../mail/service.ts';
import type { ServiceSecrets } from '../system/service-secret.ts';
import { accountOpenLimiter } from './account-caps.ts';
import { createAccountService, type AccountService } from './accounts.ts';
import type { DashboardAuth } from './auth.ts';
import { invitationMailLimiter } from './invitation-cap.ts';
import { createInvitationService, type InvitationService } from './invitations.ts';
import { createMemberService, type MemberService } from './members.ts';
import type { SessionService } from './sessions.ts';
import type { OverviewService } from './overview.ts';
import { createStandingService, type StandingService } from './standing.ts';
import { createSupportService, type SupportService } from './support.ts';

/** The dashboard's people: accounts, invitations, members and the support team's view. */
export interface PeopleServices {
  accounts: AccountService;
  invitations: InvitationService;
  members: MemberService;
  support: SupportService;
  /** Whether a member may mint keys and invite: a confirmed address, or a vouched account. */
  standing: StandingService;
}

/** What the dashboard's procedures reach besides the features' own services. */
export interface DashboardServices extends PeopleServices {
  /** better-auth, for the HTTP layer's mount of its endpoints and server-side calls. */
  auth: DashboardAuth;
  sessions: SessionService;
  /** DASHBOARD_SIGNUP: whether anyone may sign up and open an account. */
  signup: 'open' | 'closed';
  /** WEBHOOK_ALLOW_PRIVATE_URLS: the webhook form's hint says whether loopback and private receivers are taken. */
  webhookPrivateUrls: boolean;
  overview: OverviewService;
  /** The account's API keys as its members list and mint them (revoking is the key service's). */
  keys: MemberKeyService;
  /** The account's attestations as its members list them. */
  attestations: AccountAttestations;
}

/** Builds the people services (the CLI's commands use them too); `secrets` seal invitation tokens. */
export function createPeopleServices(deps: {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  keys: KeyService;
  secrets: ServiceSecrets;
  mail: MailService;
  /** The windows that count invitation mails and account openings; the CLI has none (the operator is not capped). */
  windows?: WindowStore;
}): PeopleServices {
  const { db, clock, log } = deps;
  const { signup, accountCaps: caps } = deps.config.dashboard;
  const windows = deps.windows;
  // the CLI opens no account through this service: without windows, no network is counted
  const limitOpenings = windows
    ? accountOpenLimiter(windows, clock, caps, deps.config.rateLimitIpv6Prefix)
    : async () => undefined;
  const accounts = createAccountService({ db, clock, signup, caps, limitOpenings });
  return {
    accounts,
    invitations: createInvitationService({
      db,
      clock,
      log,
      publicBaseUrl: deps.config.publicBaseUrl,
      secrets: deps.secrets,
      mail: deps.mail,
      limitInvitationMail: invitationMailLimiter(deps.windows, clock, deps.config.mail.invitationCaps),
    }),
    members: createMemberService({ db, clock }),
    support: createSupportService({ db, clock, keys: deps.keys, accounts }),
    standing: createStandingService(db),
  };
}
