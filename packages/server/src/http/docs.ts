import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';

const require = createRequire(import.meta.url);
const SWAGGER_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Attestation Service API</title>
<link rel="icon" type="image/svg+xml" href="/docs/favicon.svg">
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="docs"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true });`;

const FAVICON = join(import.meta.dirname, 'favicon.svg');

const ASSETS: Record<string, [file: string, type: string]> = {
  'swagger-ui.css': [join(SWAGGER_DIR, 'swagger-ui.css'), 'text/css; charset=utf-8'],
  'swagger-ui-bundle.js': [join(SWAGGER_DIR, 'swagger-ui-bundle.js'), 'text/javascript; charset=utf-8'],
  'favicon.svg': [FAVICON, 'image/svg+xml'],
};

/**
 * Serves the interactive API docs at /docs from the swagger-ui-dist package (no CDN, no inline script), and our
 * icon at /docs/favicon.svg and /favicon.ico (browsers ask for the latter on any page, /openapi.json included).
 */
export async function serveDocs(pathname: string, res: ServerResponse): Promise<boolean> {
  const name = pathname === '/favicon.ico' ? 'favicon.svg' : pathname.replace(/^\/docs\/?/, '');
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  );
  if (name === '') return send(res, 'text/html; charset=utf-8', PAGE);
  if (name === 'init.js') return send(res, 'text/javascript; charset=utf-8', INIT);
  const asset = ASSETS[name];
  if (!asset) return false;
  res.setHeader('Cache-Control', 'public, max-age=86400');
  return send(res, asset[1], await readFile(asset[0]));
}

function send(res: ServerResponse, type: string, body: string | Buffer): true {
  res.statusCode = 200;
  res.setHeader('Content-Type', type);
  res.end(body);
  return true;
}
