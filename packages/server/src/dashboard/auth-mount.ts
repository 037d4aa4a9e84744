import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Mount } from '../http/server.ts';
import { AUTH_BASE_PATH, CLIENT_IP_HEADER, type DashboardAuth } from './auth.ts';

/**
 * better-auth's endpoints at AUTH_BASE_PATH. The client address it rate-limits and records sessions by is the one
 * the HTTP layer judged (TRUST_PROXY), never a header the caller chose.
 */
export function authMount(auth: DashboardAuth): Mount {
  // better-auth's node adapter is loaded with better-auth itself, at the first request (dashboard/auth.ts)
  let handle: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  return {
    prefix: AUTH_BASE_PATH,
    async handle(req, res, { ip }) {
      req.headers[CLIENT_IP_HEADER] = ip;
      res.setHeader('Cache-Control', 'no-store');
      handle ??= (await import('better-auth/node')).toNodeHandler(auth.handler);
      await handle(req, res);
    },
  };
}
