import { z } from 'zod';
import { notImplemented } from '../errors.ts';
import { authedProcedure, router } from '../trpc.ts';

export const exportInput = z.strictObject({
  format: z.enum(['json', 'csv']).optional().meta({ description: 'Defaults to json, or csv when the Accept header asks for text/csv.' }),
  from: z.iso.datetime({ offset: true }).optional().meta({ description: 'Inclusive start, ISO 8601 (default: 30 days ago)' }),
  to: z.iso.datetime({ offset: true }).optional().meta({ description: 'Exclusive end, ISO 8601 (default: now)' }),
  action: z.string().max(64).optional().meta({ description: 'Only entries of this action, e.g. attestation.created' }),
});

const entry = z
  .object({
    id: z.string(),
    at: z.string(),
    action: z.string(),
    actorKeyPrefix: z.string().nullable(),
    resource: z.string(),
    outcome: z.string(),
    ip: z.string().nullable(),
    requestId: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
    prevHash: z.string(),
    hash: z.string(),
  })
  .meta({ id: 'AuditEntry' });

export const auditRouter = router({
  export: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/v1/audit/export', tags: ['audit'], protect: true, summary: 'Export your audit log (JSON or CSV)' } })
    .input(exportInput)
    .output(z.array(entry))
    .query(() => {
      throw notImplemented('Audit export');
    }),
});
