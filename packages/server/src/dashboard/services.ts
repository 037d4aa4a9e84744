import type { DashboardAuth } from './auth.ts';
import type { SessionService } from './sessions.ts';

/** What the dashboard's procedures reach besides the features' own services. */
export interface DashboardServices {
  /** better-auth, for the HTTP layer's mount of its endpoints and server-side calls. */
  auth: DashboardAuth;
  sessions: SessionService;
  /** DASHBOARD_SIGNUP: whether anyone may sign up and open an account. */
  signup: 'open' | 'closed';
}
