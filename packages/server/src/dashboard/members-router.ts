import { z } from 'zod';
import { memberProcedure, router } from '../trpc.ts';
import { memberActor, requestOrigin } from './acting.ts';
import { EMAIL_MAX } from './auth-input.ts';
import { ROLES } from './roles.ts';
import type { Member } from './sessions.ts';

const owner = memberProcedure('owner');
const role = z.enum(ROLES);
const userId = z.string().min(1).max(100);

/** What an owner's change carries: the account, the owner as actor, the request. */
const act = (ctx: { member: Member; requestId: string; ip: string }) => ({
  accountId: ctx.member.accountId,
  actor: memberActor(ctx.member),
  origin: requestOrigin(ctx),
});

/** An account's people (owners only): members and their roles, pending invitations with their links. */
export const membersRouter = router({
  list: owner
    .output(
      z.object({
        members: z.array(
          z.object({ userId: z.string(), name: z.string(), email: z.string(), role, createdAt: z.string() }),
        ),
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
    .query(async ({ ctx }) => {
      const { accountId } = ctx.member;
      const { members, invitations } = ctx.services.dashboard;
      return { members: await members.list(accountId), invitations: await invitations.pending(accountId) };
    }),

  /** A link valid 7 days for `email` to join with `role`; shown to the owner to hand over. */
  invite: owner
    .input(z.object({ email: z.email().max(EMAIL_MAX), role }))
    .output(z.object({ id: z.string(), url: z.string(), expiresAt: z.string() }))
    .mutation(({ ctx, input }) => ctx.services.dashboard.invitations.inviteMember({ ...act(ctx), ...input })),

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
