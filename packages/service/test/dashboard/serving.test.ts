import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_HEADERS, dashboardMount } from '../../src/dashboard-part.ts';

const INDEX =
  '<!doctype html><html lang="en"><head><script type="module" src="/dashboard/assets/app-1a2b.js"></script></head><body></body></html>';
const APP_JS = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;

let dir: string;
let base: string;
let missingBase: string;
const servers: Server[] = [];

/** The mount alone on a plain HTTP server, as the API's handler calls it (no database needed). */
async function serve(dist: string): Promise<string> {
  const mount = dashboardMount(dist);
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://x');
    if (pathname !== mount.prefix && !pathname.startsWith(`${mount.prefix}/`)) return void res.writeHead(418).end();
    mount.handle(req, res, { ip: '127.0.0.1', log: undefined as never }).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dashboard-dist-'));
  const dist = join(dir, 'dist');
  await mkdir(join(dist, 'assets'), { recursive: true });
  await writeFile(join(dist, 'index.html'), INDEX);
  await writeFile(join(dist, 'assets', 'app-1a2b.js'), APP_JS);
  await writeFile(join(dist, 'assets', 'style-9f8e.css'), 'body{color:red}');
  await writeFile(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(dir, 'secret.txt'), 'outside dist');
  base = await serve(dist);
  missingBase = await serve(join(dir, 'not-built'));
});
afterAll(async () => {
  for (const server of servers) server.close();
  await rm(dir, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}, origin = base) =>
  fetch(`${origin}${path}`, { headers, redirect: 'manual' });

function expectPageHeaders(res: Response): void {
  for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) expect(res.headers.get(name), name).toBe(value);
  expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
}

describe('the dashboard mount', () => {
  it('answers index.html, never cached, for the root and for any route of the app', async () => {
    for (const path of ['/dashboard/', '/dashboard/keys', '/dashboard/webhooks/abc/deliveries?state=dead']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expectPageHeaders(res);
      expect(await res.text()).toBe(INDEX);
    }
  });

  it('redirects /dashboard to /dashboard/, keeping the query', async () => {
    const res = await get('/dashboard?invite=abc');
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/dashboard/?invite=abc');
  });

  it('serves hashed assets as immutable, compressed for clients that take it', async () => {
    const plain = await get('/dashboard/assets/app-1a2b.js', { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expectPageHeaders(plain);
    expect(await plain.text()).toBe(APP_JS);
    // undici's fetch decodes on its own: read the raw bytes through node:http instead
    for (const [encoding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const raw = await rawGet(`${base}/dashboard/assets/app-1a2b.js`, encoding);
      expect(raw.headers['content-encoding']).toBe(encoding);
      expect(raw.headers.vary).toBe('Accept-Encoding');
      expect(raw.body.length).toBeLessThan(APP_JS.length / 4);
      expect(decode(raw.body).toString()).toBe(APP_JS);
    }
    const css = await get('/dashboard/assets/style-9f8e.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers 404 for a missing asset rather than the page (a script tag must not get HTML)', async () => {
    const res = await get('/dashboard/assets/gone-0000.js');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('serves files of public/ at the root, briefly cached', async () => {
    const res = await get('/dashboard/favicon.svg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('never serves a file outside dist, however the path is spelled', async () => {
    for (const path of [
      '/dashboard/../secret.txt',
      '/dashboard/%2e%2e/secret.txt',
      '/dashboard/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/dashboard/assets/..%5c..%5csecret.txt',
      '/dashboard/%2e%2e%2fsecret.txt',
      '/dashboard/assets/%00.js',
      '/dashboard/%E0%A4%A',
    ]) {
      const raw = await rawGet(`${base}${path}`);
      expect(raw.body.toString(), path).not.toContain('outside dist');
    }
  });

  it('leaves /dashboard/api/ to the server: an unknown endpoint there is a JSON 404, not the page', async () => {
    const res = await get('/dashboard/api/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json');
  });

  it('refuses methods other than GET and HEAD', async () => {
    const res = await fetch(`${base}/dashboard/keys`, { method: 'POST', body: 'x' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    const head = await fetch(`${base}/dashboard/keys`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(INDEX)));
  });

  it('says how to build the dashboard when it was not built', async () => {
    const res = await get('/dashboard/keys', {}, missingBase);
    expect(res.status).toBe(503);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expectPageHeaders(res);
    expect(await res.text()).toContain('./dev setup');
  });
});

/** A GET through node:http, which neither normalises `..` in the path nor decodes the body. */
function rawGet(url: string, encoding?: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  const { hostname, port } = new URL(url);
  const path = url.slice(url.indexOf('/', 'http://'.length));
  return new Promise((resolve, reject) => {
    const headers = encoding ? { 'accept-encoding': encoding } : {};
    request({ hostname, port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}
