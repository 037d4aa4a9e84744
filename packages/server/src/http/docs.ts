import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';

const require = createRequire(import.meta.url);
const SWAGGER_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Attestation Service API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="docs"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true });`;

const ASSETS: Record<string, [file: string, type: string]> = {
  'swagger-ui.css': ['swagger-ui.css', 'text/css; charset=utf-8'],
  'swagger-ui-bundle.js': ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
};

/** Serves the interactive API docs at /docs from the swagger-ui-dist package (no CDN, no inline script). */
export async function serveDocs(pathname: string, res: ServerResponse): Promise<boolean> {
  const name = pathname.replace(/^\/docs\/?/, '');
  res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
  if (name === '') return send(res, 'text/html; charset=utf-8', PAGE);
  if (name === 'init.js') return send(res, 'text/javascript; charset=utf-8', INIT);
  const asset = ASSETS[name];
  if (!asset) return false;
  res.setHeader('Cache-Control', 'public, max-age=86400');
  return send(res, asset[1], await readFile(join(SWAGGER_DIR, asset[0])));
}

function send(res: ServerResponse, type: string, body: string | Buffer): true {
  res.statusCode = 200;
  res.setHeader('Content-Type', type);
  res.end(body);
  return true;
}
