import { z } from 'zod';
import { memberActor, requestOrigin, type Member } from '../audit/entry.ts';
import { memberProcedure, router } from '../trpc.ts';
import { domainInput, domainList, domainView, verifyOutput } from './contracts.ts';

const caller = (member: Member) => ({ accountId: member.accountId, member: memberActor(member) });

/**
 * The dashboard's domains page: list (viewer); add, check and remove (admin). A verified domain is what the
 * verification page and the badge name as the claimant; the account's name alone is shown as self-declared.
 */
export const domainsDashboardRouter = router({
  list: memberProcedure('viewer')
    .output(domainList)
    .query(({ ctx }) => ctx.services.domains.list(ctx.member.accountId)),

  add: memberProcedure('admin')
    .input(domainInput)
    .output(domainView)
    .mutation(({ ctx, input }) => ctx.services.domains.add(caller(ctx.member), input.domain, requestOrigin(ctx))),

  verify: memberProcedure('admin')
    .input(domainInput)
    .output(verifyOutput)
    .mutation(({ ctx, input }) => ctx.services.domains.verify(caller(ctx.member), input.domain, requestOrigin(ctx))),

  remove: memberProcedure('admin')
    .input(domainInput)
    .output(z.void())
    .mutation(({ ctx, input }) => ctx.services.domains.remove(caller(ctx.member), input.domain, requestOrigin(ctx))),
});
