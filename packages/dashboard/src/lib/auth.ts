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
