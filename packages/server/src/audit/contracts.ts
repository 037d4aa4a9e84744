import { z } from 'zod';

/** An ISO 8601 instant: a date-time with offset, or a date (midnight UTC). */
const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

export const exportInput = z.strictObject({
  format: z.enum(['json', 'csv']).optional().meta({ description: 'json or csv; when absent, the Accept header decides (text/csv gives CSV), else json.' }),
  from: instant.optional().meta({ description: 'Inclusive start, ISO 8601 date-time or date (UTC midnight); default: 30 days before `to`' }),
  to: instant.optional().meta({ description: 'Exclusive end, ISO 8601 date-time or date (UTC midnight); default: now; at most 366 days after `from`' }),
  action: z.string().min(1).max(64).optional().meta({ description: 'Only entries of this action, e.g. attestation.created' }),
});

export type ExportInput = z.infer<typeof exportInput>;

/** One exported audit entry: everything a recipient needs to recompute `hash` (see README, "Audit export"). */
export const auditEntrySchema = z
  .object({
    id: z.string().meta({ description: 'Position in the log (increasing in chain order)' }),
    accountId: z.string().meta({ description: 'The account whose chain this entry is in (part of the hashed entry)' }),
    at: z.string().meta({ description: 'ISO 8601 with milliseconds, UTC' }),
    action: z.string(),
    actorKeyPrefix: z.string().nullable(),
    resource: z.string(),
    outcome: z.string().meta({ description: 'success, denied or failure' }),
    ip: z.string().nullable(),
    requestId: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
    prevHash: z.string().meta({ description: 'hash of the previous entry of this account (64 zeros for the first)' }),
    hash: z.string().meta({ description: 'SHA-256 hex of prevHash + "\\n" + canonical JSON of the entry' }),
  })
  .meta({ id: 'AuditEntry' });

export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** The CSV columns, in order; also the JSON objects' key order. */
export const EXPORT_COLUMNS = ['id', 'accountId', 'at', 'action', 'actorKeyPrefix', 'resource', 'outcome', 'ip', 'requestId', 'details', 'prevHash', 'hash'] as const satisfies ReadonlyArray<keyof AuditEntry>;

export type ExportFormat = 'json' | 'csv';

/** Longest range one export may cover. */
export const MAX_RANGE_DAYS = 366;
/** Range when `from` is absent. */
export const DEFAULT_RANGE_DAYS = 30;
