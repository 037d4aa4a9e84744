import { z } from 'zod';
import { authedProcedure, router } from '../trpc.ts';
import { exportInput } from './contracts.ts';
import { AuditExport } from './export.ts';
import { auditEntryComponent, EXPORT_ERRORS, exportSuccessResponse } from './openapi.ts';

/**
 * The export is streamed: the procedure authenticates, validates and returns an AuditExport, a StreamedBody which
 * the REST layer writes page by page (http/streamed.ts). Its OpenAPI 200 response (JSON array of AuditEntry, or CSV)
 * and the AuditEntry schema come from audit/openapi.ts through the route's `docs`, since no zod schema describes a
 * stream.
 */
const streamedExport = z
  .custom<AuditExport>((value) => value instanceof AuditExport, { message: 'not an audit export' })
  .meta({ override: { type: 'array', items: { $ref: '#/components/schemas/AuditEntry' } } });

export const auditRouter = router({
  export: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/v1/audit/export',
        tags: ['audit'],
        protect: true,
        summary: 'Export your audit log (JSON or CSV)',
        description:
          "Streams every audit entry of the caller's account in [from, to) in chain order, as a JSON array or RFC 4180 CSV (format, else the Accept header). Each entry carries prevHash and hash; docs/audit.md, under Verifying the chain, shows how to recompute them.",
      },
      docs: {
        success: exportSuccessResponse(),
        errors: EXPORT_ERRORS,
        components: { AuditEntry: auditEntryComponent() },
      },
    })
    .input(exportInput)
    .output(streamedExport)
    .query(({ ctx, input }) => ctx.services.audit.openExport(ctx.auth, input, ctx.accept)),
});
