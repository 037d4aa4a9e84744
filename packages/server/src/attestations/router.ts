import { z } from 'zod';
import { NOT_FOUND_ERRORS } from '../http/openapi.ts';
import { asAnswer } from '../http/json-text.ts';
import { withDocumentedOutput } from '../http/trpc-internals.ts';
import { authedProcedure, publicProcedure, router } from '../trpc.ts';
import {
  attestationRecord,
  createAttestationInput,
  createdAttestation,
  revokeInput,
  revokeOutput,
  searchInput,
  searchOutput,
  uidSchema,
} from './contracts.ts';
import { batchInput, batchOutput } from './batch-contracts.ts';
import { BATCH_EXAMPLES, CREATE_EXAMPLES, PROMOTE_BATCH_EXAMPLES, REVOKE_EXAMPLES } from './openapi.ts';
import { MAX_PROVENANCE_LINKS, provenanceOutput } from './provenance.ts';
import { promoteBatchInput, promoteBatchOutput, promotedAttestation, promoteInput } from './promote-contracts.ts';

const tags = ['attestations'];

/** Statuses of the on-chain writes besides the usual ones. */
const WRITE_ERRORS = {
  400: 'INVALID_SIGNATURE: a `delegation` not signed by its attester over these fields; DELEGATION_EXPIRED: its deadline is past or too near, or its off-chain time too old',
  403: 'ATTESTER_NOT_REGISTERED: the `delegation` names an address not registered to this account',
  409: 'INVALID_NONCE: a replayed or out-of-order delegated on-chain request (details.expected); ALREADY_EXISTS: this signed off-chain package is stored already',
  429: "QUOTA_EXCEEDED: the monthly on-chain quota of the key's tier, or of its account's plan, is used up",
  503: 'CHAIN_UNAVAILABLE: the chain cannot take on-chain writes right now; nothing was charged (see Retry-After)',
};

/** Statuses of a promotion besides the usual ones. */
const PROMOTE_ERRORS = {
  400: 'VALIDATION_FAILED: a `delegation` missing for (or given for) an original your attester signed (or the service did); INVALID_SIGNATURE, DELEGATION_EXPIRED: as for a create with a delegation',
  403: "FORBIDDEN: another account's attestation; ATTESTER_NOT_REGISTERED: the delegation's attester is not registered to this account",
  ...NOT_FOUND_ERRORS,
  409: 'ALREADY_ONCHAIN: it is an on-chain attestation; ALREADY_REVOKED: it is revoked; INVALID_NONCE: a replayed or out-of-order delegated request',
  429: WRITE_ERRORS[429],
  503: WRITE_ERRORS[503],
};

export const attestationsRouter = router({
  create: authedProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/v1/attestations',
        tags,
        protect: true,
        summary: 'Create an attestation',
        description: 'Attests that content is human-made or AI-generated, on-chain (default) or off-chain.',
      },
      docs: { errors: WRITE_ERRORS, requestExamples: CREATE_EXAMPLES },
    })
    .input(createAttestationInput)
    .output(createdAttestation)
    .mutation(({ ctx, input }) => ctx.services.attestations.create(ctx.auth, input, ctx)),

  batch: authedProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/v1/attestations/batch',
        tags,
        protect: true,
        summary: 'Create up to 100 attestations',
        description: 'All on-chain items go into one multiAttest transaction; validated all-or-nothing.',
      },
      docs: { errors: WRITE_ERRORS, requestExamples: BATCH_EXAMPLES },
    })
    .input(batchInput)
    .output(batchOutput)
    .mutation(({ ctx, input }) => ctx.services.batches.create(ctx.auth, input.attestations, ctx)),

  // read answers are built field by field by toRecord (typed): documented, not parsed again (docs/decisions.md)
  get: withDocumentedOutput(
    publicProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/v1/attestations/{uid}',
          tags,
          protect: false,
          summary: 'Read an attestation',
        },
        docs: { errors: NOT_FOUND_ERRORS },
      })
      .input(z.strictObject({ uid: uidSchema }))
      .output(attestationRecord)
      .query(async ({ ctx, input }) => asAnswer(await ctx.services.attestations.get(input.uid))),
  ),

  provenance: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/attestations/{uid}/provenance',
        tags,
        protect: false,
        summary: 'Read the chain an attestation derives from',
        description: `This attestation, then each refUid back to its origin, newest first, each with its verdict; at most ${MAX_PROVENANCE_LINKS} links (\`truncated\` says when there are more).`,
      },
      docs: { errors: NOT_FOUND_ERRORS },
    })
    .input(z.strictObject({ uid: uidSchema }))
    .output(provenanceOutput)
    .query(({ ctx, input }) => ctx.services.attestations.provenance(input.uid)),

  search: withDocumentedOutput(
    publicProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/v1/attestations',
          tags,
          protect: false,
          summary: 'Search attestations by content hash, or list your own',
          description:
            "Newest first, cursor-paginated. `hash`: every attestation of that content (public). `mine=true`: your account's own (needs your key), filterable by type, mode and creation time.",
        },
      })
      .input(searchInput)
      .output(searchOutput)
      .query(async ({ ctx, input }) => asAnswer(await ctx.services.attestations.search(input, ctx.auth))),
  ),

  revoke: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/attestations/{uid}/revoke',
        tags,
        protect: true,
        summary: 'Revoke an attestation',
        description:
          'Signed by the relayer on your behalf; only the account that created it may revoke it. The body is optional.',
      },
      docs: {
        errors: {
          403: 'FORBIDDEN: the attestation belongs to another account',
          ...NOT_FOUND_ERRORS,
          409: 'ALREADY_REVOKED',
          503: 'CHAIN_UNAVAILABLE: the revocation transaction failed or is still pending (see Retry-After)',
        },
        requestExamples: REVOKE_EXAMPLES,
      },
    })
    .input(revokeInput)
    .output(revokeOutput)
    .mutation(({ ctx, input }) => ctx.services.revocations.revoke(ctx.auth, input.uid, input.reason, ctx)),

  promote: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/attestations/{uid}/onchain',
        tags,
        protect: true,
        summary: 'Put an off-chain attestation on chain',
        description:
          'The same content hash, type and source type, attested on chain by the relayer and charged like an on-chain create; the two records name each other. Promoting it again answers the same on-chain attestation, charged nothing. No body, except for an attestation your registered attester signed: then its `delegation` (an EAS delegated request signed by that attester), as its promotion stays its claim.',
      },
      docs: { errors: PROMOTE_ERRORS },
    })
    .input(promoteInput)
    .output(promotedAttestation)
    .mutation(({ ctx, input }) => ctx.services.promotions.promote(ctx.auth, input.uid, input.delegation)),

  promoteBatch: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/v1/attestations/onchain',
        tags,
        protect: true,
        summary: 'Put up to 100 off-chain attestations on chain',
        description:
          'Each as POST /v1/attestations/{uid}/onchain would, in one transaction; a member refused gets its error in its result and the others go on. The quota must cover every member not promoted yet.',
      },
      docs: { errors: { 429: WRITE_ERRORS[429], 503: WRITE_ERRORS[503] }, requestExamples: PROMOTE_BATCH_EXAMPLES },
    })
    .input(promoteBatchInput)
    .output(promoteBatchOutput)
    .mutation(({ ctx, input }) => ctx.services.promotions.promoteMany(ctx.auth, input.uids)),
});
