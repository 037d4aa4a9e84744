import { randomBytes, randomUUID } from 'node:crypto';
import { passkey } from '@better-auth/passkey';
import { betterAuth } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { APIError, createAuthMiddleware } from 'better-auth/api';
import type { Clock } from '../clock.ts';
import { describeError } from '../errors.ts';
import type { Db } from '../db/prisma.ts';
import type { WindowStore } from '../limits/sliding-window.ts';
import type { Logger } from '../log.ts';

/** Where better-auth's endpoints live: under the dashboard, on the API's origin (one cookie, no CORS). */
export const AUTH_BASE_PATH = '/dashboard/api/auth';
/** The header the HTTP layer sets to the caller's address as it judged it (TRUST_PROXY); any sent one is dropped. */
export const CLIENT_IP_HEADER = 'x-service-client-ip';
/** Sent with a sign-up while DASHBOARD_SIGNUP is closed: the invitation (or setup) link's token. */
export const INVITATION_TOKEN_HEADER = 'x-invitation-token';
export const SESSION_COOKIE_PREFIX = 'attestation';

/** Idle expiry (each use within it slides the session on, written at most once an hour) and absolute expiry. */
export const SESSION_IDLE_SECONDS = 7 * 24 * 3600;
export const SESSION_ABSOLUTE_MS = 30 * 24 * 3600 * 1000;
/** Sign-in attempts per email address, whatever the address they come from (better-auth limits per address). */
export const SIGN_IN_PER_EMAIL = { limit: 10, windowMs: 15 * 60_000 };

export interface AuthOptions {
  db: Db;
  /** The dashboard's public origin, as browsers reach it: the relying party of passkeys and the trusted origin. */
  publicBaseUrl: string;
  secret: string;
  signup: 'open' | 'closed';
  windows: WindowStore;
  clock: Clock;
  log: Logger;
  /** Whether a sign-up may create this user while sign-up is closed: an unused invitation token for its email. */
  mayCreateUser(token: string | undefined, email: string): Promise<boolean>;
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
      user: { id: string; name: string; email: string };
    } | null>;
  };
}

/**
 * better-auth for the dashboard's people: email + password (scrypt) and passkeys, sessions in PostgreSQL (idle
 * and absolute expiry, listed and revocable), rate-limited sign-in. Members, roles and invitations are ours
 * (docs/decisions.md, "Dashboard sign-in").
 */
export function createDashboardAuth(opts: AuthOptions): DashboardAuth {
  const origin = new URL(opts.publicBaseUrl).origin;
  return betterAuth({
    appName: 'Attestation Service',
    baseURL: opts.publicBaseUrl,
    basePath: AUTH_BASE_PATH,
    secret: opts.secret,
    trustedOrigins: [origin],
    telemetry: { enabled: false },
    database: prismaAdapter(opts.db, { provider: 'postgresql' }),
    account: { modelName: 'authAccount' },
    emailAndPassword: { enabled: true, minPasswordLength: 10, maxPasswordLength: 256, autoSignIn: true },
    session: { expiresIn: SESSION_IDLE_SECONDS, updateAge: 3600 },
    rateLimit: {
      enabled: true,
      storage: 'database',
      window: 60,
      max: 100,
      customRules: {
        '/sign-in/email': { window: 60, max: 5 },
        '/sign-up/email': { window: 60, max: 5 },
        '/sign-in/passkey': { window: 60, max: 10 },
        '/change-password': { window: 60, max: 5 },
      },
    },
    advanced: {
      cookiePrefix: SESSION_COOKIE_PREFIX,
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      database: { generateId: () => randomUUID() },
    },
    plugins: [passkey({ rpID: new URL(opts.publicBaseUrl).hostname, rpName: 'Attestation Service', origin })],
    logger: {
      level: 'warn',
      // an error's type and code only: a database error's message may carry SQL or values (docs/operations.md)
      log: (level, message, ...args) => {
        const error = args.find((a) => a instanceof Error);
        opts.log[level]({ component: 'auth', ...(error ? { error: describeError(error) } : {}) }, message);
      },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== '/sign-in/email') return;
        const email = String((ctx.body as { email?: unknown } | undefined)?.email ?? '').toLowerCase();
        const { limit, windowMs } = SIGN_IN_PER_EMAIL;
        const decision = await opts.windows.hit(`signin-email:${email}`, limit, windowMs, opts.clock.now());
        if (!decision.allowed) {
          const retryAfter = Math.max(1, Math.ceil(decision.resetMs / 1000));
          throw new APIError(
            'TOO_MANY_REQUESTS',
            { message: `Too many sign-in attempts for this email. Retry in ${retryAfter} s.` },
            { 'Retry-After': String(retryAfter) },
          );
        }
      }),
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user, ctx) => {
            if (opts.signup === 'open') return;
            const token = ctx?.headers?.get(INVITATION_TOKEN_HEADER) ?? undefined;
            if (!(await opts.mayCreateUser(token, user.email.toLowerCase())))
              throw new APIError('FORBIDDEN', {
                message: 'Sign-up is by invitation: open the invitation link you were sent.',
              });
          },
        },
      },
    },
  });
}

/** The secret that signs session cookies: made once and kept in the database, so every replica shares it. */
export async function dashboardSecret(db: Db): Promise<string> {
  const name = 'dashboard-auth';
  await db.serviceSecret.createMany({
    data: [{ name, value: randomBytes(32).toString('base64url') }],
    skipDuplicates: true,
  });
  const row = await db.serviceSecret.findUniqueOrThrow({ where: { name } });
  return row.value;
}
