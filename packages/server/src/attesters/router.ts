import { z } from 'zod';
import { NOT_FOUND_ERRORS } from '../http/openapi.ts';
import { authedProcedure, router } from '../trpc.ts';
import {
  addressInput,
  attesterList,
  attesterOutput,
  challengeInput,
  challengeOutput,
  nonceOutput,
  registerInput,
} from './contracts.ts';

const tags = ['attesters'];
const TAKEN = { 409: 'ATTESTER_TAKEN: the address is registered to another account' };

/** Customer attesters: addresses an account proved it controls, which then sign its attestations themselves. */
export const attestersRouter = router({
  challenge: authedProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/v1/attesters/challenges',
        tags,
        protect: true,
        summary: 'Get a challenge to register an address',
        description:
          'Returns a message naming your account and the address. Sign it with that address (EIP-191 personal_sign) within 10 minutes and register it with POST /v1/attesters; each challenge works once.',
      },
      docs: {
        errors: TAKEN,
        requestExamples: {
          challenge: {
            summary: 'An address you hold the key of',
            value: { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
          },
        },
      },
    })
    .input(challengeInput)
    .output(challengeOutput)
    .mutation(({ ctx, input }) => ctx.services.attesters.challenge(ctx.auth, input.address)),

  register: authedProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/v1/attesters',
        tags,
        protect: true,
        summary: 'Register an address by its signed challenge',
        description:
          "From then on the address may sign your attestations (the `delegation` field of a create): the record, the verification page and the badge name it, and your account's name.",
      },
      docs: {
        errors: {
          400: 'CHALLENGE_INVALID: unknown, used or expired challenge; INVALID_SIGNATURE: not signed by the address',
          ...TAKEN,
        },
        requestExamples: {
          register: {
            summary: 'The challenge id and its signed message',
            value: { challengeId: '5b0c8a8e-8f1e-4a57-9a0e-0f3b1f3c2d11', signature: `0x${'ab'.repeat(64)}1b` },
          },
        },
      },
    })
    .input(registerInput)
    .output(attesterOutput)
    .mutation(({ ctx, input }) => ctx.services.attesters.register(ctx.auth, input, ctx)),

  list: authedProcedure
    .meta({
      openapi: { method: 'GET', path: '/v1/attesters', tags, protect: true, summary: "List your account's attesters" },
    })
    .input(z.strictObject({}))
    .output(attesterList)
    .query(({ ctx }) => ctx.services.attesters.list(ctx.auth)),

  nonce: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/attesters/{address}/nonce',
        tags,
        protect: true,
        summary: "The nonce an attester's next delegated on-chain request is signed for",
        description:
          "EAS counts each attester's delegated requests: the chain's count plus those the service holds for the relayer.",
      },
      docs: { errors: NOT_FOUND_ERRORS },
    })
    .input(addressInput)
    .output(nonceOutput)
    .query(({ ctx, input }) => ctx.services.delegations.nextNonce(ctx.auth, input.address)),

  remove: authedProcedure
    .meta({
      successStatus: 204,
      openapi: {
        method: 'DELETE',
        path: '/v1/attesters/{address}',
        tags,
        protect: true,
        summary: 'Remove an attester',
        description: 'Requests it signs are refused from now on; attestations it made stand.',
      },
      docs: { errors: NOT_FOUND_ERRORS },
    })
    .input(addressInput)
    .output(z.void())
    .mutation(({ ctx, input }) => ctx.services.attesters.remove(ctx.auth, input.address, ctx)),
});
