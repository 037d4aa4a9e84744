import { z } from 'zod';
import { uidSchema } from '../../attestations/contracts.ts';
import { NOT_FOUND_ERRORS } from '../../http/openapi.ts';
import { TextBody } from '../../http/text-body.ts';
import { publicProcedure, router } from '../../trpc.ts';
import { VC_JWT_MEDIA_TYPE } from './issuer.ts';

const tags = ['credentials'];

const vcJwt = z
  .custom<TextBody>((value) => value instanceof TextBody, { message: 'not a credential' })
  .meta({ override: { type: 'string' } });

const vcJwtResponse = (description: string, cacheControl: string) => ({
  description,
  headers: { 'Cache-Control': { schema: { type: 'string', example: cacheControl } } },
  content: {
    [VC_JWT_MEDIA_TYPE]: {
      schema: {
        type: 'string',
        description: 'A compact JWS (header typ vc+jwt, alg ES256, kid)',
        example: 'eyJhbGciOiJFUzI1NiIsInR5cCI6InZjK2p3dCJ9.eyJAY29udGV4dCI6W119.c2lnbmF0dXJl',
      },
    },
  },
});

const jwk = z.object({
  kty: z.string().meta({ example: 'EC' }),
  crv: z.string().meta({ example: 'P-256' }),
  x: z.string().meta({ example: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU' }),
  y: z.string().meta({ example: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }),
  kid: z.string().meta({ example: 'did:web:api.example.com#key-20261128-1a2b3c4d' }),
  alg: z.literal('ES256'),
  use: z.literal('sig'),
});

export const credentialsRouter = router({
  get: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/attestations/{uid}/credential',
        tags,
        protect: false,
        summary: 'An attestation as a W3C Verifiable Credential',
        description:
          'The attestation as a VC 2.0 secured with JOSE (`application/vc+jwt`), signed by the service (keys at /.well-known/jwks.json), its revocation a BitstringStatusListEntry.',
      },
      docs: {
        success: vcJwtResponse('The credential, as a compact JWS', 'public, max-age=300'),
        errors: NOT_FOUND_ERRORS,
      },
    })
    .input(z.strictObject({ uid: uidSchema }))
    .output(vcJwt)
    .query(({ ctx, input }) => ctx.services.credentials.credential(input.uid)),

  statusList: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/status-lists/{list}',
        tags,
        protect: false,
        summary: 'A revocation status list',
        description:
          "A BitstringStatusListCredential of 131,072 entries (GZIP, multibase base64url) as `application/vc+jwt`: the bit at an attestation credential's statusListIndex is set once it is revoked, on-chain or off-chain.",
      },
      docs: {
        success: vcJwtResponse('The status list credential, as a compact JWS', 'public, max-age=60'),
        errors: NOT_FOUND_ERRORS,
      },
    })
    .input(
      z.strictObject({
        list: z
          .string()
          .regex(/^(0|[1-9][0-9]{0,12})$/, 'must be a status list number')
          .meta({ example: '0', description: "The number in a credential's statusListCredential URL" }),
      }),
    )
    .output(vcJwt)
    .query(({ ctx, input }) => ctx.services.credentials.statusList(BigInt(input.list))),

  jwks: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/.well-known/jwks.json',
        tags,
        protect: false,
        summary: 'The keys that sign credentials',
        description: 'Every key not retired, by kid: credentials signed before a rotation still verify.',
      },
    })
    .input(z.strictObject({}))
    .output(z.object({ keys: z.array(jwk) }))
    .query(({ ctx }) => ctx.services.credentials.jwks()),

  did: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/.well-known/did.json',
        tags,
        protect: false,
        summary: "The issuer's did:web document",
        description: 'The DID document of the issuer every credential names, listing the same keys as the JWKS.',
      },
    })
    .input(z.strictObject({}))
    .output(z.record(z.string(), z.unknown()))
    .query(({ ctx }) => ctx.services.credentials.didDocument()),
});
