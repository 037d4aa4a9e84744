import { z } from 'zod';
import { memberProcedure, router } from '../trpc.ts';
import { memberActor, requestOrigin, type Member } from '../audit/entry.ts';
import { inviteMemberInput, roleSchema } from '../rules.ts';

const owner = memberProcedure('owner');
const role = roleSchema;
const userId = z.string().min(1).max(100);

/** What an owner's change carries: the account, the owner as actor, the request. */
const act = (ctx: { member: Member; requestId: string; ip: string }) => ({
  accountId: ctx.member.accountId,
  actor: memberActor(ctx.member),
  origin: requestOrigin(ctx),
});

/** A page of the members list: at most 100, 50 unless asked. */
const memberPage = z
  .object({ limit: z.number().int().min(1).max(100).default(50), cursor: z.string().max(200).optional() })
  .strict()
  .default({ limit: 50 });

/**
 * An account's people (owners only): a page of members and their roles, oldest first (`nextCursor` while more
 * follow), and the pending invitations with their links (at most MAX_PENDING_INVITATIONS: not paged).
 */
export const membersRouter = router({
  list: owner
    .input(memberPage)
    .output(
      z.object({
        members: z.array(
          z.object({ userId: z.string(), name: z.string(), email: z.string(), role, createdAt: z.string() }),
        ),
        nextCursor: z.string().nullable(),
        invitations: z.array(
          z.object({
            id: z.string(),
            email: z.string().nullable(),
            role: z.string(),
            url: z.string().nullable(),
            expiresAt: z.string(),
            createdAt: z.string(),
          }),
        ),
      }),
    )
    .query(async ({ ctx, input }) => {
      const { accountId } = ctx.member;
      const { members, invitations } = ctx.services.dashboard;
      const page = await members.list(accountId, input);
      return { ...page, invitations: await invitations.pending(accountId) };
    }),

  /** A link valid 7 days for `email` to join with `role`; shown to the owner to hand over. */
  invite: owner
    .input(inviteMemberInput)
    .output(z.object({ id: z.string(), url: z.string(), expiresAt: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const { standing, invitations } = ctx.services.dashboard;
      await standing.require(ctx.signedIn.user, ctx.member.accountId, 'sending an invitation');
      return invitations.inviteMember({ ...act(ctx), ...input });
    }),

  revokeInvitation: owner
    .input(z.object({ id: z.uuid() }))
    .output(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) => ctx.services.dashboard.invitations.revoke({ ...act(ctx), id: input.id })),

  setRole: owner
    .input(z.object({ userId, role }))
    .output(z.object({ userId: z.string(), role }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.dashboard.members.setRole(act(ctx), input.userId, input.role);
      return input;
    }),

  remove: owner
    .input(z.object({ userId }))
    .output(z.object({ userId: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.dashboard.members.remove(act(ctx), input.userId);
      return input;
    }),
});
