import { z } from 'zod';
import { roleSchema } from '../rules.ts';
import { accountNameSchema } from './account-name.ts';
import { INVITATION_KINDS } from './invitation-store.ts';

// What the dashboard's accounts, members and invitations procedures take and answer (they are not in the REST API).
// The invitation form's rules are shared with the page: inviteMemberInput.
export { inviteMemberInput } from '../rules.ts';

const iso = z.string();

/** An invitation link's last path segment (newInvitationToken: 32 bytes, base64url). */
const token = z.string().min(1).max(200);

/** Opening an account without an invitation (while DASHBOARD_SIGNUP is open). */
export const openAccountInput = z.object({ name: accountNameSchema });
export const openedAccount = z.object({ accountId: z.string() });

/** A page of the members list: at most 100, 50 unless asked. */
export const memberPageInput = z
  .object({ limit: z.number().int().min(1).max(100).default(50), cursor: z.string().max(200).optional() })
  .strict()
  .default({ limit: 50 });

/** A page of members, oldest first (`data`, `nextCursor` as every page), with the account's pending invitations. */
export const memberPage = z.object({
  data: z.array(
    z.object({ userId: z.string(), name: z.string(), email: z.string(), role: roleSchema, createdAt: iso }),
  ),
  nextCursor: z.string().nullable(),
  invitations: z.array(
    z.object({
      id: z.string(),
      email: z.string().nullable(),
      role: z.string(),
      url: z.string().nullable(),
      expiresAt: iso,
      createdAt: iso,
    }),
  ),
});

export const invitationLink = z.object({ id: z.string(), url: z.string(), expiresAt: iso });

export const invitationIdInput = z.object({ id: z.uuid() });
export const invitationId = z.object({ id: z.string() });

const userId = z.string().min(1).max(100);
export const memberInput = z.object({ userId });
export const memberRemoved = z.object({ userId: z.string() });
export const roleInput = z.object({ userId, role: roleSchema });
export const roleSet = z.object({ userId: z.string(), role: roleSchema });

export const invitationTokenInput = z.object({ token });

/** What a link is for, shown before sign-in. */
export const invitationView = z.object({
  kind: z.enum(INVITATION_KINDS),
  accountName: z.string().nullable(),
  email: z.string().nullable(),
  role: z.string(),
  expiresAt: iso,
  adoptable: z
    .array(z.object({ id: z.string(), name: z.string() }))
    .describe("a setup link's: accounts the CLI opened with no member yet, which it may take over"),
});

export const acceptInput = z.object({
  token,
  accountName: accountNameSchema.optional().describe('a setup link: the new account it opens'),
  accountId: z.uuid().optional().describe('a setup link: the account the CLI opened that it takes over'),
});

export const accepted = z.object({ kind: z.enum(INVITATION_KINDS), accountId: z.string().nullable() });
