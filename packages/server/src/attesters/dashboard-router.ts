import { z } from 'zod';
import { memberActor, requestOrigin, type Member, type MemberActor } from '../audit/entry.ts';
import { memberProcedure, router } from '../trpc.ts';
import {
  addressInput,
  attesterList,
  attesterOutput,
  challengeInput,
  challengeOutput,
  registerInput,
} from './contracts.ts';

/** The member as the attester service's caller: the account acted in, and the person for the audit entry. */
function caller(member: Member): {
  accountId: string;
  accountName: string;
  member: MemberActor;
} {
  return {
    accountId: member.accountId,
    accountName: member.accountName,
    member: memberActor(member),
  };
}

/** The dashboard's attesters page: the same contracts as REST; list (viewer), register and remove (admin). */
export const attestersDashboardRouter = router({
  list: memberProcedure('viewer')
    .output(attesterList)
    .query(({ ctx }) => ctx.services.attesters.list(ctx.member)),

  challenge: memberProcedure('admin')
    .input(challengeInput)
    .output(challengeOutput)
    .mutation(({ ctx, input }) => ctx.services.attesters.challenge(caller(ctx.member), input.address)),

  register: memberProcedure('admin')
    .input(registerInput)
    .output(attesterOutput)
    .mutation(({ ctx, input }) => ctx.services.attesters.register(caller(ctx.member), input, requestOrigin(ctx))),

  remove: memberProcedure('admin')
    .input(addressInput)
    .output(z.void())
    .mutation(({ ctx, input }) => ctx.services.attesters.remove(caller(ctx.member), input.address, requestOrigin(ctx))),
});
