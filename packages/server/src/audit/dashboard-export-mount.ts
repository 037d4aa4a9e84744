import { z } from 'zod';
import { AppError } from '../errors.ts';
import { assertAcceptableInput } from '../http/input-rules.ts';
import { headerOf } from '../http/request.ts';
import type { Mount } from '../http/server.ts';
import { sendStreamed } from '../http/streamed.ts';
import type { Role } from '../rules.ts';
import { exportInput } from './contracts.ts';
import type { Member } from './entry.ts';
import type { AuditService } from './service.ts';

/**
 * The dashboard's sessions as the download checks them (dashboard/sessions.ts gives them; audit/ knows no dashboard):
 * the signed-in person of a cookie, then the member they act as in an account.
 */
interface DownloadSessions<SignedIn extends { user: { id: string } }> {
  /** UNAUTHENTICATED without a live session. */
  resolve(cookie: string | undefined): Promise<SignedIn>;
  /** The member acting in `accountId` (else their first account): NOT_FOUND when not theirs, FORBIDDEN below `role`. */
  member(signedIn: SignedIn, accountId: string | undefined, role: Role): Promise<Member>;
}

/** A member's rate limit (limits/rate-limit.ts gives it): the bucket all their dashboard calls share, its headers. */
interface MemberRateLimit {
  forKey(bucket: string, tier: 'pro'): Promise<Record<string, string>>;
}

/** Where the browser downloads an account's audit export (a link, so a plain GET with the session cookie). */
const AUDIT_EXPORT_PATH = '/dashboard/api/audit-export';

/** The export's own parameters, and the account (the page's link carries it: a download sends no x-account-id). */
const downloadInput = exportInput.extend({ account: z.string().max(100).optional() });

/**
 * The audit export for a signed-in member (viewer or above) of the account named by `account` (else
 * `x-account-id`, else their first): exactly what GET /v1/audit/export streams for a key of that account, as an
 * attachment. Checked as the dashboard's procedures are: the session on every call, the member's rate limit, the
 * input rules, NOT_FOUND for an account that is not theirs; errors are the service's JSON body. Without `from` it
 * is the whole log from its first entry (the page's "Download the whole log"), not the API's default 30 days.
 */
export function auditExportMount<SignedIn extends { user: { id: string } }>(services: {
  sessions: DownloadSessions<SignedIn>;
  audit: AuditService;
  rateLimiter: MemberRateLimit;
}): Mount {
  const { sessions } = services;
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
      const member = await sessions.member(signedIn, account ?? headerOf(req, 'x-account-id'), 'viewer');
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
