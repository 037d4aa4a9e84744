import { z } from 'zod';

/** An ISO 8601 instant: a date-time with offset, or a date (midnight UTC); as the export takes them. */
const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

/** A key prefix (12 hex characters) or a member's email. */
const ACTOR = /^([0-9a-fA-F]{12}|[^\s@]+@[^\s@]+)$/;

export const entryListInput = z.strictObject({
  action: z.string().min(1).max(64).optional(),
  actor: z
    .string()
    .max(254)
    .regex(ACTOR, "must be an API key's prefix (12 hex characters) or a member's email")
    .optional(),
  from: instant.optional(),
  to: instant.optional(),
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(100).default(50),
});
export type EntryListInput = z.infer<typeof entryListInput>;

const listedEntry = z.object({
  id: z.string(),
  at: z.string(),
  action: z.string(),
  /** The API key's prefix, or the dashboard member's email; null when the service itself acted. */
  actor: z.string().nullable(),
  resource: z.string(),
  outcome: z.string(),
  ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});

/** A page of the account's entries, as every page of the API: `data`, and `nextCursor` while more follow. */
export const entryListPage = z.object({ data: z.array(listedEntry), nextCursor: z.string().nullable() });
export type EntryListPage = z.infer<typeof entryListPage>;
