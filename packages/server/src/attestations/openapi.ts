/** What the OpenAPI document says of attestations beyond their zod contracts: examples and the create body's oneOf. */

type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

export const EXAMPLE_UID = '0x4f1b3d7c9e2a5b8d0c6e4a2f1b3d5c7e9a0b2c4d6e8f1a3b5c7d9e0f2a4b6c8d';
const EXAMPLE_CONTENT = 'A poem I wrote myself.';
/** SHA-256 of EXAMPLE_CONTENT, so the examples agree with each other. */
export const EXAMPLE_CONTENT_HASH = '0x2e48715aa339dfc199c3773140aa59135ecc43df8370ddfa37a97439bb27cc83';

/**
 * zod-openapi override for the creation body: the runtime's "exactly one of content or contentHash" refinement,
 * said in JSON Schema as a oneOf of two closed objects sharing the other fields (so generated clients and Swagger's
 * Try it out get it right). Mutates the rendered schema in place, as zod-openapi expects.
 */
export function oneOfContentOrHash({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  const { content, contentHash, ...shared } = jsonSchema.properties ?? {};
  const required = jsonSchema.required ?? [];
  const branch = (name: string, schema: unknown, title: string) => ({
    title,
    type: 'object',
    properties: { ...shared, [name]: schema },
    required: [...required, name],
    additionalProperties: false,
  });
  for (const key of Object.keys(jsonSchema)) if (key !== 'description') delete jsonSchema[key];
  jsonSchema.description = 'Give exactly one of content and contentHash.';
  jsonSchema.oneOf = [
    branch('content', content, 'With content'),
    branch('contentHash', contentHash, 'With contentHash'),
  ];
}

const item = { type: 'human', content: EXAMPLE_CONTENT, contentType: 'text/plain', mode: 'onchain' };

/** Request examples for Swagger's Try it out: each one is accepted as is. */
export const CREATE_EXAMPLES = {
  content: { summary: 'The content itself (only its hash is stored)', value: item },
  contentHash: {
    summary: 'Only the SHA-256 of the content, off-chain',
    value: { type: 'ai', contentHash: EXAMPLE_CONTENT_HASH, contentType: 'image/png', mode: 'offchain' },
  },
};

export const BATCH_EXAMPLES = {
  batch: {
    summary: 'Two attestations: one on-chain, one off-chain',
    value: {
      attestations: [
        item,
        { type: 'ai', contentHash: EXAMPLE_CONTENT_HASH, contentType: 'image/png', mode: 'offchain' },
      ],
    },
  },
};

export const PROMOTE_BATCH_EXAMPLES = {
  two: {
    summary: 'Two off-chain attestations',
    value: {
      uids: [
        '0x4f1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9',
        '0x5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b',
      ],
    },
  },
};

export const REVOKE_EXAMPLES = {
  reason: { summary: 'With a reason (the body is optional)', value: { reason: 'Published by mistake' } },
};
