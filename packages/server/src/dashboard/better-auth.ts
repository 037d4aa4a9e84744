import { randomUUID } from 'node:crypto';
import { passkey } from '@better-auth/passkey';
import { betterAuth } from 'better-auth';
import { prismaAdapter } from 'better-auth/adapters/prisma';
import { APIError, createAuthMiddleware } from 'better-auth/api';
import { describeError } from '../errors.ts';
import {
  AUTH_BASE_PATH,
  CLIENT_IP_HEADER,
  INVITATION_TOKEN_HEADER,
  SESSION_COOKIE_PREFIX,
  SESSION_IDLE_SECONDS,
  SIGN_IN_PER_EMAIL,
  type AuthOptions,
  type DashboardAuth,
} from './auth.ts';

/**
 * better-auth for the dashboard's people: email + password (scrypt) and passkeys, sessions in PostgreSQL (idle
 * and absolute expiry, listed and revocable), rate-limited sign-in. Members, roles and invitations are ours
 * (docs/decisions.md, "Dashboard sign-in").
 */
export function createBetterAuth(opts: AuthOptions): DashboardAuth {
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
    // read with the session (one query less per dashboard call); set only by a support invitation, never by input
    user: { additionalFields: { support: { type: 'boolean', required: false, defaultValue: false, input: false } } },
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
