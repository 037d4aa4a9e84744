import { memberProcedure, router } from '../trpc.ts';
import { accountListInput, accountListPage, memberRevokeInput, memberRevokeOutput } from './dashboard-contracts.ts';

/** The dashboard's attestations page: the account's attestations (viewer), revoke (admin). */
export const attestationsDashboardRouter = router({
  /** Newest first in keyset pages; filters by type, mode, revoked and content hash (with or without 0x, any case). */
  list: memberProcedure('viewer')
    .input(accountListInput)
    .output(accountListPage)
    .query(({ ctx, input }) => ctx.services.accountAttestations.list(ctx.member.accountId, input)),

  /**
   * As the API's revoke: the relayer revokes on-chain (or `revokeOffchain`), then the audit entry (naming the member)
   * and `attestation.revoked` are written with it. Another account's attestation is NOT_FOUND.
   */
  revoke: memberProcedure('admin')
    .input(memberRevokeInput)
    .output(memberRevokeOutput)
    .mutation(({ ctx, input }) => {
      const { member } = ctx;
      const actor = { userId: member.userId, email: member.email, role: member.role };
      return ctx.services.revocations.revokeAsMember({ accountId: member.accountId, actor }, input.uid, input.reason);
    }),
});
