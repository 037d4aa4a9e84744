import { accountsDashboardRouter } from './accounts/accounts-router.ts';
import { invitationsDashboardRouter } from './accounts/invitations-router.ts';
import { membersDashboardRouter } from './accounts/members-router.ts';
import { attestationsDashboardRouter } from './attestations/dashboard-router.ts';
import { attestationsRouter } from './attestations/router.ts';
import { attestersDashboardRouter } from './attesters/dashboard-router.ts';
import { attestersRouter } from './attesters/router.ts';
import { auditDashboardRouter } from './audit/dashboard-router.ts';
import { auditRouter } from './audit/router.ts';
import { credentialsRouter } from './credentials/vc/router.ts';
import { sessionDashboardRouter } from './dashboard/session-router.ts';
import { supportDashboardRouter } from './dashboard/support-router.ts';
import { domainsDashboardRouter } from './domains/dashboard-router.ts';
import { keysDashboardRouter } from './keys/dashboard-router.ts';
import { usageRouter } from './limits/router.ts';
import { mailDashboardRouter } from './mail/dashboard-router.ts';
import { overviewDashboardRouter } from './overview/dashboard-router.ts';
import { systemRouter } from './system/router.ts';
import { router } from './trpc.ts';
import { webhooksDashboardRouter } from './webhooks/dashboard-router.ts';
import { webhooksRouter } from './webhooks/router.ts';

/**
 * Every procedure of the service, once: the source of the REST paths, the OpenAPI document and the SDK's types. A
 * public router is `<key>Router` in its feature's `router.ts`; a dashboard router is `<key>DashboardRouter` in its
 * feature's `dashboard-router.ts` (a folder with several: `<key>-router.ts`), one router a file.
 */
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
    session: sessionDashboardRouter,
    invitations: invitationsDashboardRouter,
    accounts: accountsDashboardRouter,
    members: membersDashboardRouter,
    support: supportDashboardRouter,
    keys: keysDashboardRouter,
    webhooks: webhooksDashboardRouter,
    overview: overviewDashboardRouter,
    attestations: attestationsDashboardRouter,
    attesters: attestersDashboardRouter,
    audit: auditDashboardRouter,
    mail: mailDashboardRouter,
    domains: domainsDashboardRouter,
  }),
});

export type AppRouter = typeof appRouter;
