import { z } from 'zod';
import { tierSchema } from '../rules.ts';

// The dashboard's API keys page: what its procedures take and answer (the REST API has no key routes). A key's name
// and tier as a member asks for them are rules the page's form shares.
export { createKeyInput } from '../rules.ts';

const iso = z.string();

export const keyPrefixInput = z.strictObject({
  prefix: z.string().regex(/^[0-9a-f]{12}$/, 'a key prefix is 12 hexadecimal characters'),
});

const accountKey = z.object({
  prefix: z.string(),
  name: z.string().nullable(),
  tier: tierSchema,
  createdBy: z.object({ name: z.string(), email: z.string() }).nullable(),
  createdAt: iso,
  lastUsedAt: iso.nullable(),
  revokedAt: iso.nullable(),
  state: z.enum(['active', 'revoked']),
});

export const accountKeyList = z.array(accountKey);

/** The full key is in this answer only. */
export const mintedKey = z.object({
  key: z.string(),
  prefix: z.string(),
  name: z.string(),
  tier: tierSchema,
  createdAt: iso,
});

export const revokedKey = z.object({ prefix: z.string(), revokedAt: iso });
