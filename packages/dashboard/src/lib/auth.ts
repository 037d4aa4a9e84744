import { passkeyClient } from '@better-auth/passkey/client';
import { createAuthClient } from 'better-auth/client';

/** Where the service mounts better-auth (packages/server/src/dashboard/auth.ts, AUTH_BASE_PATH). */
const AUTH_PATH = '/dashboard/api/auth';

/** Sent with a sign-up while sign-up is closed: the invitation link's token. */
export const INVITATION_TOKEN_HEADER = 'x-invitation-token';

/** better-auth's browser client: email + password, passkeys, the member's own sessions. */
export const authClient = createAuthClient({
  baseURL: window.location.origin + AUTH_PATH,
  plugins: [passkeyClient()],
});

/**
 * Signs up, then in when the answer carried no session: while sign-up is open it never does, so that it answers a
 * known address as a new one. A known address with another password fails at the sign-in, as any wrong password.
 */
export async function signUpAndIn(
  fields: { name: string; email: string; password: string },
  headers?: Record<string, string>,
) {
  const up = await authClient.signUp.email(fields, headers ? { headers } : undefined);
  if (up.error) return up;
  if ((await authClient.getSession()).data) return up;
  return authClient.signIn.email({ email: fields.email, password: fields.password });
}
