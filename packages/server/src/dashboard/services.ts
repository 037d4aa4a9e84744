import type { DashboardAuth } from './auth.ts';
import type { SessionService } from './sessions.ts';
import type { SupportService } from './support.ts';

/**
 * The dashboard's own: sign-in, sessions and the support team's view. What its pages show of the features is each
 * feature's own service (accounts, keys, webhooks, audit, ...).
 */
export interface DashboardServices {
  /** better-auth, for the HTTP layer's mount of its endpoints and server-side calls. */
  auth: DashboardAuth;
  sessions: SessionService;
  support: SupportService;
  /** DASHBOARD_SIGNUP: whether anyone may sign up and open an account. */
  signup: 'open' | 'closed';
  /** WEBHOOK_ALLOW_PRIVATE_URLS: the webhook form's hint says whether loopback and private receivers are taken. */
  webhookPrivateUrls: boolean;
}
