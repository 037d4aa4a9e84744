import { z } from 'zod';
import { timestamp } from '../http/openapi-fields.ts';

/** An ISO 8601 instant: a date-time with offset, or a date (midnight UTC). */
const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

export const exportInput = z.strictObject({
  // meta before optional(): trpc-to-openapi drops the meta of an optional query parameter
  format: z
    .enum(['json', 'csv'])
    .meta({ description: 'json or csv; when absent, the Accept header decides (text/csv gives CSV), else json.' })
    .optional(),
  from: instant
    .meta({ description: 'Inclusive start, ISO 8601 date-time or date (UTC midnight); default: 30 days before `to`' })
    .optional(),
  to: instant
    .meta({
      description:
        'Exclusive end, ISO 8601 date-time or date (UTC midnight); default: now; at most 366 days after `from`',
    })
    .optional(),
  action: z
    .string()
    .min(1)
    .max(64)
    .meta({ description: 'Only entries of this action, e.g. attestation.created' })
    .optional(),
});

export type ExportInput = z.infer<typeof exportInput>;

/** One exported audit entry: everything a recipient needs to recompute `hash` (docs/audit.md). */
export const auditEntrySchema = z
  .object({
    id: z.string().meta({ description: 'Position in the log (increasing in chain order)', example: '1042' }),
    accountId: z
      .string()
      .meta({ description: 'The account whose chain this entry is in (part of the hashed entry)', example: '17' }),
    at: timestamp('ISO 8601 with milliseconds, UTC'),
    action: z.string().meta({ example: 'attestation.created' }),
    actorKeyPrefix: z.string().nullable().meta({ example: '3f9a0c2b7d1e' }),
    resource: z.string().meta({ example: `attestation:0x${'4f'.repeat(32)}` }),
    outcome: z.string().meta({ description: 'success, denied or failure', example: 'success' }),
    ip: z.string().nullable().meta({ example: '203.0.113.7' }),
    requestId: z.string().nullable().meta({ example: '5b0e8f7c-3a1d-4c2b-9e6f-0a1b2c3d4e5f' }),
    details: z.record(z.string(), z.unknown()).meta({ example: { mode: 'onchain' } }),
    prevHash: z.string().meta({
      description: 'hash of the previous entry of this account (64 zeros for the first)',
      example: '0'.repeat(64),
    }),
    hash: z
      .string()
      .meta({ description: 'SHA-256 hex of prevHash + "\\n" + canonical JSON of the entry', example: '7d'.repeat(32) }),
  })
  .meta({ id: 'AuditEntry' });

export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** The CSV columns, in order; also the JSON objects' key order. */
export const EXPORT_COLUMNS = [
  'id',
  'accountId',
  'at',
  'action',
  'actorKeyPrefix',
  'resource',
  'outcome',
  'ip',
  'requestId',
  'details',
  'prevHash',
  'hash',
] as const satisfies ReadonlyArray<keyof AuditEntry>;

export type ExportFormat = 'json' | 'csv';

export const MAX_RANGE_DAYS = 366;
/** Range when `from` is absent. */
export const DEFAULT_RANGE_DAYS = 30;
