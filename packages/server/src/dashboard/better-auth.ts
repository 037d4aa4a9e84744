import { randomUUID } from 'node:crypto';
import { boundedPasswordHashing } from './password-hashing.ts';
import { passkey } from '@better-auth/passkey';
import { betterAuth, type BetterAuthOptions } from 'better-auth';
import { APIError, createAuthMiddleware, isAPIError } from 'better-auth/api';
import { describeError } from '../errors.ts';
import { meter } from '../system/meter.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from '../rules.ts';
import { onPasskeyRegistered, onPasswordReset, onVerificationCreated, RESET_TOKEN_STORAGE } from './password-reset.ts';
import { capSessions } from './session-cap.ts';
import {
  AUTH_BASE_PATH,
  CLIENT_IP_HEADER,
  INVITATION_TOKEN_HEADER,
  SESSION_COOKIE_PREFIX,
  SESSION_IDLE_SECONDS,
  SIGN_IN_PER_EMAIL,
  TOKEN_PATHS,
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
    trustedOrigins: opts.origins,
    telemetry: { enabled: false },
    disabledPaths: [...TOKEN_PATHS],
    // better-auth's Kysely adapter on the service's own database (db/database.ts): its tables by their names in the
    // generated types, camelCase mapped to snake_case by the same plugin as every other query
    database: { db: opts.db, type: 'postgres' },
    account: { modelName: 'authAccounts' },
    // reset tokens hashed at rest (password-reset.ts)
    verification: { modelName: 'verifications', storeIdentifier: RESET_TOKEN_STORAGE },
    // read with the session (one query less per dashboard call); set only by a support invitation, never by input
    user: {
      modelName: 'users',
      additionalFields: { support: { type: 'boolean', required: false, defaultValue: false, input: false } },
    },
    emailAndPassword: passwordOptions(opts),
    emailVerification: verificationOptions(opts),
    session: { modelName: 'sessions', expiresIn: SESSION_IDLE_SECONDS, updateAge: 3600 },
    rateLimit: rateLimit(),
    advanced: {
      cookiePrefix: SESSION_COOKIE_PREFIX,
      // better-auth keys its limits, and records a session's address, by this network (limits/client-network.ts)
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER], ipv6Subnet: opts.ipv6Prefix },
      database: { generateId: () => randomUUID() },
    },
    plugins: [
      passkey({
        rpID: new URL(opts.publicBaseUrl).hostname,
        rpName: 'Attestation Service',
        origin,
        // the plugin's `credentialID` would map to credential_i_d
        schema: { passkey: { modelName: 'passkeys', fields: { credentialID: 'credentialId' } } },
      }),
    ],
    logger: {
      level: 'warn',
      // an error's type and code only: a database error's message may carry SQL or values (docs/operations.md)
      log: (level, message, ...args) => {
        const error = args.find((a) => a instanceof Error);
        opts.log[level]({ component: 'auth', ...(error ? { error: describeError(error) } : {}) }, message);
      },
    },
    // a refusal better-auth answers (a wrong password, an uninvited sign-up) is the client's, not an error of ours
    onAPIError: {
      onError: (error) => {
        if (!isAPIError(error))
          opts.log.error({ component: 'auth', error: describeError(error) }, 'auth request failed');
      },
    },
    hooks: hooks(opts),
    databaseHooks: databaseHooks(opts),
  });
}

/** Email and password: scrypt, bounded; sign-up and reset mails. */
function passwordOptions(opts: AuthOptions): BetterAuthOptions['emailAndPassword'] {
  return {
    enabled: true,
    minPasswordLength: PASSWORD_MIN,
    maxPasswordLength: PASSWORD_MAX,
    // a hash at a time per spare core: a flood of sign-ins never takes the core other requests run on
    password: boundedPasswordHashing(),
    // open sign-up answers a known address as a new one (its owner is mailed instead), so no answer carries a
    // session: the page signs in next (docs/decisions.md, "Open sign-up")
    autoSignIn: opts.signup === 'closed',
    onExistingUserSignUp: ({ user }) => opts.mail.signUpAttempt(user.email, `${opts.publicBaseUrl}/dashboard/sign-in`),
    // an unknown address gets the same answer and no mail (docs/decisions.md, "Mail")
    sendResetPassword: ({ user, token }) =>
      opts.mail.resetPassword(user.email, `${opts.publicBaseUrl}/dashboard/reset-password?token=${token}`),
    resetPasswordTokenExpiresIn: 3600,
    revokeSessionsOnPasswordReset: true,
    onPasswordReset: ({ user }) => onPasswordReset(opts.db, opts.log, user.id),
  };
}

/** The address confirmation mail, and what its link does. */
function verificationOptions(opts: AuthOptions): BetterAuthOptions['emailVerification'] {
  return {
    sendOnSignUp: true,
    expiresIn: 24 * 3600,
    afterEmailVerification: async (user) => opts.addressConfirmed?.(user.id),
    // an invitation's link confirmed the address already: no second mail
    sendVerificationEmail: async ({ user, token }) => {
      if (user.emailVerified) return;
      const landing = encodeURIComponent(`${opts.publicBaseUrl}/dashboard/verify-email`);
      await opts.mail.verifyEmail(
        user.email,
        `${opts.publicBaseUrl}${AUTH_BASE_PATH}/verify-email?token=${token}&callbackURL=${landing}`,
      );
    },
  };
}

/** better-auth's own limits, per client network: tight on sign-in and on what may queue a mail. */
function rateLimit(): BetterAuthOptions['rateLimit'] {
  return {
    enabled: true,
    storage: 'database',
    modelName: 'authRateLimits',
    window: 60,
    max: 100,
    customRules: {
      '/sign-in/email': { window: 60, max: 5 },
      '/sign-up/email': { window: 60, max: 5 },
      '/sign-in/passkey': { window: 60, max: 10 },
      '/change-password': { window: 60, max: 5 },
      // each of these may queue a mail: few per address (the outbox bounds each recipient too)
      '/request-password-reset': { window: 60, max: 3 },
      '/reset-password': { window: 60, max: 5 },
      '/send-verification-email': { window: 60, max: 3 },
      // each answer writes a challenge row (expired ones are swept by the worker: auth-cleanup.ts)
      '/passkey/generate-authenticate-options': { window: 60, max: 10 },
      '/passkey/generate-register-options': { window: 60, max: 10 },
    },
  };
}

/** Sign-in per email, closed sign-up; the sign-ins metric and a new passkey's mail. */
function hooks(opts: AuthOptions): BetterAuthOptions['hooks'] {
  return {
    before: createAuthMiddleware(async (ctx) => {
      if (ctx.path === '/sign-in/email') await limitSignInPerEmail(opts, emailOf(ctx.body));
      else if (ctx.path === '/sign-up/email' && opts.signup === 'closed') {
        const token = ctx.headers?.get(INVITATION_TOKEN_HEADER) ?? undefined;
        if (await opts.mayCreateUser(token, emailOf(ctx.body))) return;
        // the hash a sign-up would cost, so that a known email and an unknown one take as long to refuse
        await ctx.context.password.hash(stringField(ctx.body, 'password'));
        throw signUpRefused();
      }
    }),
    after: createAuthMiddleware(async (ctx) => {
      if (SIGN_IN_PATHS.has(ctx.path)) meter().signIn(isAPIError(ctx.context.returned) ? 'failure' : 'success');
      if (ctx.path === '/passkey/verify-registration') await onPasskeyRegistered(opts.db, ctx.context.returned);
    }),
  };
}

/** The session cap, hashed reset tokens, and a new user checked (and confirmed) by their invitation. */
function databaseHooks(opts: AuthOptions): BetterAuthOptions['databaseHooks'] {
  return {
    // a sign-in past the cap ends the person's oldest sessions
    session: { create: { after: (session) => capSessions(opts.db, session.userId) } },
    verification: { create: { after: (row) => onVerificationCreated(opts.db, row) } },
    user: {
      create: {
        before: async (user, ctx) => {
          const token = ctx?.headers?.get(INVITATION_TOKEN_HEADER) ?? undefined;
          const email = user.email.toLowerCase();
          // the before-hook refused anyone without an invitation; this holds if one is used up meanwhile
          if (opts.signup === 'closed' && !(await opts.mayCreateUser(token, email))) throw signUpRefused();
          // the invitation's link reached this mailbox: the address is confirmed as a confirmation mail would
          if (await opts.invitedAddress(token, email)) return { data: { ...user, emailVerified: true } };
        },
      },
    },
  };
}

/** The answers the sign-ins metric counts: a password's, and a passkey's last step. */
const SIGN_IN_PATHS = new Set(['/sign-in/email', '/passkey/verify-authentication']);

/** A body field's text, or '' when it is absent or not text (the mount has refused other types; this never throws). */
function stringField(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

const emailOf = (body: unknown): string => stringField(body, 'email').toLowerCase();

/**
 * An uninvited sign-up while sign-up is closed, in the service's error body: the same answer whether the email is
 * registered or not, so that it tells nobody which addresses have an account.
 */
function signUpRefused(): APIError {
  const message = 'Sign-up is by invitation: open the invitation link you were sent.';
  return new APIError('FORBIDDEN', { code: 'FORBIDDEN', message, details: {} });
}

/** Sign-in attempts per email address, whatever the address they come from (better-auth limits per address). */
async function limitSignInPerEmail(opts: AuthOptions, email: string): Promise<void> {
  const { limit, windowMs } = SIGN_IN_PER_EMAIL;
  const decision = await opts.windows.hit(`signin-email:${email}`, limit, windowMs, opts.clock.now());
  if (decision.allowed) return;
  const retryAfter = Math.max(1, Math.ceil(decision.resetMs / 1000));
  throw new APIError(
    'TOO_MANY_REQUESTS',
    { message: `Too many sign-in attempts for this email. Retry in ${retryAfter} s.` },
    { 'Retry-After': String(retryAfter) },
  );
}
