import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { WindowStore } from '../limits/sliding-window.ts';
import type { Logger } from '../log.ts';
import { purposeKey, type ServiceSecrets } from '../system/service-secret.ts';

/** Where better-auth's endpoints live: under the dashboard, on the API's origin (one cookie, no CORS). */
export const AUTH_BASE_PATH = '/dashboard/api/auth';
/** The header the HTTP layer sets to the caller's address as it judged it (TRUST_PROXY); any sent one is dropped. */
export const CLIENT_IP_HEADER = 'x-service-client-ip';
/** Sent with a sign-up while DASHBOARD_SIGNUP is closed: the invitation (or setup) link's token. */
export const INVITATION_TOKEN_HEADER = 'x-invitation-token';
export const SESSION_COOKIE_PREFIX = 'attestation';
/** better-auth's endpoints that hand session tokens to the page or take them from it: the dashboard's own by id. */
export const TOKEN_PATHS = ['/list-sessions', '/revoke-session'] as const;

/** Idle expiry (each use within it slides the session on, written at most once an hour) and absolute expiry. */
export const SESSION_IDLE_SECONDS = 7 * 24 * 3600;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
/** Sign-in attempts per email address, whatever the address they come from (better-auth limits per address). */
export const SIGN_IN_PER_EMAIL = { limit: 10, windowMs: 15 * 60_000 };

export interface AuthOptions {
  db: Db;
  /** The dashboard's public origin, as browsers reach it: the relying party of passkeys and the trusted origin. */
  publicBaseUrl: string;
  /** Every origin its pages are served from (dashboard/origins.ts): PUBLIC_BASE_URL's first. */
  origins: string[];
  secret: string;
  signup: 'open' | 'closed';
  windows: WindowStore;
  /** RATE_LIMIT_IPV6_PREFIX: better-auth's per-address limits count an IPv6 client by this network. */
  ipv6Prefix?: number;
  clock: Clock;
  log: Logger;
  /** Whether a sign-up may create this user while sign-up is closed: an unused invitation token for its email. */
  mayCreateUser(token: string | undefined, email: string): Promise<boolean>;
  /** Whether the token is a pending invitation sent to this email: signing up with it confirms the address. */
  invitedAddress(token: string | undefined, email: string): Promise<boolean>;
  /** A person's address was confirmed: the accounts they own are vouched for (accounts/standing.ts). */
  addressConfirmed?(userId: string): Promise<void>;
  /** Queues the reset and confirmation mails (nothing when mail is off). */
  mail: {
    resetPassword(to: string, url: string): Promise<void>;
    verifyEmail(to: string, url: string): Promise<void>;
    signUpAttempt(to: string, url: string): Promise<void>;
  };
}

/**
 * What the service uses of better-auth: its endpoints' handler (mounted at AUTH_BASE_PATH) and the server-side session
 * lookup. Named here (not inferred) so the type stays portable across the plugin's dependency tree.
 */
export interface DashboardAuth {
  handler(request: Request): Promise<Response>;
  api: {
    getSession(ctx: { headers: Headers; query?: { disableCookieCache?: boolean } }): Promise<{
      session: { id: string; createdAt: Date; userId: string };
      user: { id: string; name: string; email: string; emailVerified: boolean; support?: boolean | null };
    } | null>;
  };
}

/**
 * better-auth for the dashboard's people (dashboard/better-auth.ts), loaded at the first dashboard request: its
 * modules and the passkey plugin's are large (docs/decisions.md, "Memory"), and an API process serving only the REST
 * API need not carry them.
 */
export function createDashboardAuth(opts: AuthOptions): DashboardAuth {
  let loaded: Promise<DashboardAuth> | undefined;
  const load = () => (loaded ??= import('./better-auth.ts').then((m) => m.createBetterAuth(opts)));
  return {
    handler: async (request) => withoutSessionTokens(await (await load()).handler(request)),
    api: { getSession: async (ctx) => (await load()).api.getSession(ctx) },
  };
}

/**
 * better-auth's JSON answers without the session tokens it puts in them (sign-in, sign-up, get-session): the HttpOnly
 * cookie carries the token, and page JavaScript has no use for it.
 */
async function withoutSessionTokens(response: Response): Promise<Response> {
  if (!response.headers.get('content-type')?.includes('application/json')) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const init = { status: response.status, statusText: response.statusText, headers };
  const body = parseRecord(text);
  if (!body) return new Response(text, init);
  delete body.token;
  const session = isRecord(body.session) ? { ...body.session } : undefined;
  if (session) delete session.token;
  return new Response(JSON.stringify(session ? { ...body, session } : body), init);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseRecord(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The secret better-auth signs session cookies with, derived from SERVICE_SECRET (not kept in the database, so a
 * session token read from a dump cannot be made into a cookie). better-auth signs with one secret only: a new
 * SERVICE_SECRET signs every member out (docs/operations.md, "Service secret").
 */
export function sessionCookieSecret(secrets: ServiceSecrets): string {
  return purposeKey(secrets.current, 'dashboard-session-cookie').toString('base64url');
}
