import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { dashboardDist } from '@attestation-service/dashboard';
import { DASHBOARD_HEADERS, type StartOptions } from '@attestation-service/server';
import { compressedAsset, type Encoding } from './dashboard-compress.ts';

type Mount = NonNullable<StartOptions['mounts']>[number];

const DASHBOARD_PREFIX = '/dashboard';
const ASSETS = `${DASHBOARD_PREFIX}/assets/`;
/** Paths under it belong to the server's mounts (sign-in, the audit export); one that reaches this mount is unknown. */
const API = `${DASHBOARD_PREFIX}/api/`;

// the same headers as the sign-in endpoints' answers: declared once, in the server
export { DASHBOARD_HEADERS };

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Files Vite copies from public/ (favicon, robots.txt) keep their names across builds: short-lived. */
const UNHASHED = 'public, max-age=300';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dashboard not built</title></head>
<body><main><h1>The dashboard was not built</h1>
<p>This service serves the account dashboard from <code>packages/dashboard/dist</code>, which does not exist yet.
Run <code>./dev setup</code> (or <code>./dev start</code>, which runs it) and reload this page.</p></main></body></html>
`;

/**
 * The account dashboard's single-page app under /dashboard/ on the API's port (same origin as /trpc and better-auth's
 * endpoints, so the session cookie needs no CORS): hashed assets cached for good, every other path answers
 * index.html (the app routes in the browser), never cached since it names the current build's assets.
 */
export function dashboardMount(dist: string = dashboardDist): Mount {
  const root = resolve(dist);
  return {
    prefix: DASHBOARD_PREFIX,
    async handle(req, res) {
      for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) res.setHeader(name, value);
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        return sendJson(res, 405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on the dashboard's pages.`, {
          allowed: ['GET', 'HEAD'],
        });
      }
      if (url.pathname === DASHBOARD_PREFIX) {
        res.setHeader('Cache-Control', 'no-store');
        return void res.writeHead(308, { Location: `${DASHBOARD_PREFIX}/${url.search}` }).end();
      }
      if (url.pathname.startsWith(API))
        return sendJson(res, 404, 'NOT_FOUND', `No dashboard endpoint ${url.pathname}.`);
      const file = fileOf(root, url.pathname);
      if (file === undefined) return sendJson(res, 404, 'NOT_FOUND', 'No such file in the dashboard.');
      if (url.pathname.startsWith(ASSETS)) {
        if (!(await isFile(file))) return sendJson(res, 404, 'NOT_FOUND', `No dashboard asset ${url.pathname}.`);
        return sendFile(req, res, file, IMMUTABLE);
      }
      if (url.pathname !== `${DASHBOARD_PREFIX}/` && extname(file) !== '.html' && (await isFile(file)))
        return sendFile(req, res, file, UNHASHED);
      return sendIndex(req, res, root);
    },
  };
}

/** The file a path names inside dist, or undefined when it is malformed or would leave dist (`..`, encoded or not). */
function fileOf(root: string, pathname: string): string | undefined {
  let relative: string;
  try {
    relative = decodeURIComponent(pathname.slice(DASHBOARD_PREFIX.length));
  } catch {
    return undefined;
  }
  if (relative.includes('\0') || relative.includes('\\')) return undefined;
  const file = resolve(root, `.${relative}`);
  return file === root || file.startsWith(root + sep) ? file : undefined;
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() ?? false;
}

/** The app's page for any route it has; read each time (it is small), so a rebuild is served without a restart. */
async function sendIndex(req: IncomingMessage, res: ServerResponse, root: string): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  const html = await readFile(resolve(root, 'index.html')).catch(() => undefined);
  if (html === undefined) {
    res.statusCode = 503;
    return void res.end(req.method === 'HEAD' ? undefined : NOT_BUILT);
  }
  res.setHeader('Content-Length', html.length);
  res.end(req.method === 'HEAD' ? undefined : html);
}

async function sendFile(req: IncomingMessage, res: ServerResponse, file: string, cache: string): Promise<void> {
  const body = await compressedAsset(file, acceptedEncodings(req));
  res.setHeader('Cache-Control', cache);
  res.setHeader('Content-Type', TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream');
  res.setHeader('Vary', 'Accept-Encoding');
  if (body.encoding) res.setHeader('Content-Encoding', body.encoding);
  res.setHeader('Content-Length', body.data.length);
  res.end(req.method === 'HEAD' ? undefined : body.data);
}

/** The encodings the client takes, best first (a q=0 entry refuses it). */
function acceptedEncodings(req: IncomingMessage): Encoding[] {
  const header = String(req.headers['accept-encoding'] ?? '').toLowerCase();
  const accepted = new Set(
    header
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !/^\s*q=0(\.0*)?\s*$/.test(q ?? ''))
      .map(([name]) => name!.trim()),
  );
  return (['br', 'gzip'] as const).filter((e) => accepted.has(e));
}

/** An error in the API's `{ code, message, details }` shape. */
function sendJson(res: ServerResponse, status: number, code: string, message: string, details = {}): void {
  res.statusCode = status;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ code, message, details }));
}
