import { memberActor, requestOrigin, type Member } from '../audit/entry.ts';
import { memberProcedure, router } from '../trpc.ts';
import {
  invitationId,
  invitationIdInput,
  invitationLink,
  inviteMemberInput,
  memberInput,
  memberPage,
  memberPageInput,
  memberRemoved,
  roleInput,
  roleSet,
} from './contracts.ts';

const owner = memberProcedure('owner');

/** What an owner's change carries: the account, the owner as actor, the request. */
const act = (ctx: { member: Member; requestId: string; ip: string }) => ({
  accountId: ctx.member.accountId,
  actor: memberActor(ctx.member),
  origin: requestOrigin(ctx),
});

/**
 * An account's people (owners only): a page of members and their roles, oldest first (`nextCursor` while more
 * follow), and the pending invitations with their links (at most MAX_PENDING_INVITATIONS: not paged).
 */
export const membersDashboardRouter = router({
  list: owner
    .input(memberPageInput)
    .output(memberPage)
    .query(async ({ ctx, input }) => {
      const { accountId } = ctx.member;
      const page = await ctx.services.members.list(accountId, input);
      return { ...page, invitations: await ctx.services.invitations.pending(accountId) };
    }),

  /** A link valid 7 days for `email` to join with `role`; shown to the owner to hand over. */
  invite: owner
    .input(inviteMemberInput)
    .output(invitationLink)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.standing.require(ctx.signedIn.user, ctx.member.accountId, 'sending an invitation');
      return ctx.services.invitations.inviteMember({ ...act(ctx), ...input });
    }),

  revokeInvitation: owner
    .input(invitationIdInput)
    .output(invitationId)
    .mutation(({ ctx, input }) => ctx.services.invitations.revoke({ ...act(ctx), id: input.id })),

  setRole: owner
    .input(roleInput)
    .output(roleSet)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.members.setRole(act(ctx), input.userId, input.role);
      return input;
    }),

  remove: owner
    .input(memberInput)
    .output(memberRemoved)
    .mutation(async ({ ctx, input }) => {
      await ctx.services.members.remove(act(ctx), input.userId);
      return input;
    }),
});
