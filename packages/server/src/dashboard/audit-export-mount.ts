import { z } from 'zod';
import { exportInput } from '../audit/contracts.ts';
import type { AuditService } from '../audit/service.ts';
import { AppError } from '../errors.ts';
import { assertAcceptableInput } from '../http/input-rules.ts';
import { headerOf } from '../http/request.ts';
import type { Mount } from '../http/server.ts';
import { sendStreamed } from '../http/streamed.ts';
import type { RateLimiter } from '../limits/rate-limit.ts';
import { requireRole } from './roles.ts';
import type { SessionService } from './sessions.ts';

/** Where the browser downloads an account's audit export (a link, so a plain GET with the session cookie). */
export const AUDIT_EXPORT_PATH = '/dashboard/api/audit-export';

/** The export's own parameters, and the account (the page's link carries it: a download sends no x-account-id). */
const downloadInput = exportInput.extend({ account: z.string().max(100).optional() });

/**
 * The audit export for a signed-in member (viewer or above) of the account named by `account` (else
 * `x-account-id`, else their first): exactly what GET /v1/audit/export streams for a key of that account, as an
 * attachment. Checked as the dashboard's procedures are: the session on every call, the member's rate limit, the
 * input rules, NOT_FOUND for an account that is not theirs; errors are the service's JSON body. Without `from` it
 * is the whole log from its first entry (the page's "Download the whole log"), not the API's default 30 days.
 */
export function auditExportMount(services: {
  dashboard: { sessions: SessionService };
  audit: AuditService;
  rateLimiter: RateLimiter;
}): Mount {
  const { sessions } = services.dashboard;
  return {
    prefix: AUDIT_EXPORT_PATH,
    async handle(req, res) {
      res.setHeader('Cache-Control', 'no-store');
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== AUDIT_EXPORT_PATH)
        throw new AppError('NOT_FOUND', `No route ${req.method} ${url.pathname}.`);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${url.pathname}; use GET.`, {
          allowed: ['GET', 'HEAD'],
        });
      }
      const signedIn = await sessions.resolve(headerOf(req, 'cookie'));
      const limit = await services.rateLimiter.forKey(`member:${signedIn.user.id}`, 'pro');
      for (const [name, value] of Object.entries(limit)) res.setHeader(name, value);
      const raw = Object.fromEntries(url.searchParams);
      assertAcceptableInput(raw);
      const { account, ...input } = downloadInput.parse(raw);
      const member = await sessions.member(signedIn, account ?? headerOf(req, 'x-account-id'));
      requireRole(member.role, 'viewer');
      const exp = services.audit.openExport(
        { accountId: member.accountId, accountName: member.accountName },
        input,
        headerOf(req, 'accept'),
        true,
      );
      await sendStreamed(req, res, exp, {});
    },
  };
}
