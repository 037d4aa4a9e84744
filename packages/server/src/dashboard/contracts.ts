import { z } from 'zod';
import { PLANS } from '../accounts/service.ts';
import { ROLES } from '../accounts/roles.ts';

// What the dashboard's own procedures take and answer: who is signed in and their sessions, and the operator's
// support team's view.

const iso = z.string();
const signup = z.enum(['open', 'closed']);

export const signupState = z.object({ signup });

const membership = z.object({
  accountId: z.string(),
  accountName: z.string(),
  role: z.enum(ROLES),
  plan: z.string(),
});

export const me = z.object({
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  memberships: z.array(membership),
  support: z.boolean(),
  signup,
  /** Whether webhook receivers may be http, loopback or private (WEBHOOK_ALLOW_PRIVATE_URLS). */
  webhookPrivateUrls: z.boolean(),
});

const sessionRow = z.object({
  id: z.string(),
  /** The session this call came with. */
  current: z.boolean(),
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: iso,
  /** When the session was last slid on (at most once an hour). */
  updatedAt: iso,
  expiresAt: iso,
});

export const sessionList = z.array(sessionRow);
export const sessionInput = z.object({ id: z.uuid() });
export const sessionRevoked = z.object({ revoked: z.literal(true) });

const accountId = z.uuid();
const account = { accountId: z.string(), name: z.string(), plan: z.string(), createdAt: iso };

export const findInput = z.object({ query: z.string().trim().min(1).max(100) });
export const foundAccounts = z.array(z.object(account));

export const accountInput = z.object({ accountId });

export const supportAccount = z.object({
  ...account,
  usage: z.array(
    z.object({
      prefix: z.string(),
      name: z.string().nullable(),
      tier: z.string(),
      used: z.number(),
      quota: z.number().nullable(),
      revokedAt: z.string().nullable(),
    }),
  ),
  deadDeliveries: z.array(
    z.object({
      id: z.string(),
      subscriptionUrl: z.string(),
      event: z.string(),
      attempts: z.number(),
      createdAt: iso,
    }),
  ),
});

export const setPlanInput = z.object({ accountId, plan: z.enum(PLANS) });
export const planSet = z.object({ accountId: z.string(), plan: z.enum(PLANS) });

export const revokeKeyInput = z.object({
  accountId,
  prefix: z.string().regex(/^[0-9a-f]{12}$/, 'must be a 12-hex-character key prefix'),
});
export const keyRevoked = z.object({ prefix: z.string(), revokedAt: iso });

export const replayInput = z.object({ accountId, deliveryId: z.uuid() });
export const replayed = z.object({ id: z.string(), state: z.literal('pending') });
