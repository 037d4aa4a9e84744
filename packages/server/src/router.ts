import { attestationsRouter } from './attestations/router.ts';
import { attestersRouter } from './attesters/router.ts';
import { attestersDashboardRouter } from './dashboard/attesters-router.ts';
import { auditRouter } from './audit/router.ts';
import { credentialsRouter } from './credentials/vc/router.ts';
import { usageRouter } from './limits/router.ts';
import { systemRouter } from './system/router.ts';
import { router } from './trpc.ts';
import { webhooksRouter } from './webhooks/router.ts';
import { sessionRouter } from './dashboard/session-router.ts';
import { accountsRouter, invitationsRouter } from './dashboard/invitations-router.ts';
import { membersRouter } from './dashboard/members-router.ts';
import { supportRouter } from './dashboard/support-router.ts';
import { overviewRouter } from './dashboard/overview-router.ts';
import { keysDashboardRouter } from './dashboard/keys-router.ts';
import { webhooksDashboardRouter } from './dashboard/webhooks-router.ts';
import { attestationsDashboardRouter } from './dashboard/attestations-router.ts';
import { auditDashboardRouter } from './dashboard/audit-router.ts';
import { mailRouter } from './dashboard/mail-router.ts';
import { domainsDashboardRouter } from './domains/router.ts';

/** Every procedure of the service, once: the source of the REST paths, the OpenAPI document and the SDK's types. */
export const appRouter = router({
  attestations: attestationsRouter,
  attesters: attestersRouter,
  webhooks: webhooksRouter,
  audit: auditRouter,
  credentials: credentialsRouter,
  usage: usageRouter,
  system: systemRouter,
  /**
   * The account dashboard's procedures (docs/decisions.md, "Dashboard sign-in"): session-authorized, tRPC only, not in
   * /openapi.json.
   */
  dashboard: router({
    session: sessionRouter,
    invitations: invitationsRouter,
    accounts: accountsRouter,
    members: membersRouter,
    support: supportRouter,
    keys: keysDashboardRouter,
    webhooks: webhooksDashboardRouter,
    overview: overviewRouter,
    attestations: attestationsDashboardRouter,
    attesters: attestersDashboardRouter,
    audit: auditDashboardRouter,
    mail: mailRouter,
    domains: domainsDashboardRouter,
  }),
});

export type AppRouter = typeof appRouter;
