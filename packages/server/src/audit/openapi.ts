import { z } from 'zod';
import { auditEntrySchema, EXPORT_COLUMNS } from './contracts.ts';

type Schemas = Record<string, unknown>;

/** The AuditEntry component, from the zod contract. */
export function auditEntryComponent(): Schemas {
  // the schema's meta id makes zod answer { $ref, $defs: { AuditEntry } }: the component is that definition
  const json = z.toJSONSchema(auditEntrySchema, { io: 'output' }) as Schemas & { $defs?: Record<string, Schemas> };
  const { $schema: _ignored, ...schema } = json.$defs?.AuditEntry ?? json;
  return schema;
}

/** The export's 200 response: a JSON array of AuditEntry or CSV, as a download. */
export function exportSuccessResponse(): Record<string, unknown> {
  return {
    description:
      'The entries of [from, to), oldest first (chain order), streamed. An error after the first byte aborts the connection, so a body without its end (`]`, or the final chunk) is incomplete.',
    headers: {
      'Content-Disposition': {
        description: 'attachment; filename="audit-<account>-<from>-<to>.<json|csv>"',
        schema: { type: 'string', example: 'attachment; filename="audit-acme-2025-01-01-2025-02-01.csv"' },
      },
    },
    content: {
      'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/AuditEntry' } } },
      'text/csv': {
        schema: {
          type: 'string',
          description: `RFC 4180 with a header row (${EXPORT_COLUMNS.join(',')}); empty cell = null; details as canonical JSON; a cell starting with = + - @ tab CR or ' is prefixed with '`,
          example: `${EXPORT_COLUMNS.join(',')}\r\n`,
        },
        example: `${EXPORT_COLUMNS.join(',')}\r\n`,
      },
    },
  };
}

/** Statuses the export answers besides the usual ones. */
export const EXPORT_ERRORS: Record<number, string> = {
  400: 'VALIDATION_FAILED: from must be before to, and the range at most 366 days',
  406: 'NOT_ACCEPTABLE: the Accept header allows neither application/json nor text/csv (and no format was given)',
};
