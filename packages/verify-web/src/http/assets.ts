import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { vocabularyScript } from '../content-credentials.ts';
import { ASSET_TYPES, PAGE_HEADERS, WORKER_CSP } from './headers.ts';
import { etagOf, send } from './respond.ts';

const gzipAsync = promisify(gzip);
const require = createRequire(import.meta.url);

interface Asset {
  body: Buffer;
  etag: string;
  headers: Record<string, string>;
  /** The body gzipped, made once on first ask (c2pa-rs's WebAssembly is 9 MB, 3.5 MB gzipped). */
  gzipped: () => Promise<{ body: Buffer; etag: string }>;
}

function asset(name: string, body: Buffer, headers: Record<string, string> = {}): Asset {
  const etag = etagOf(body);
  let gzipped: Promise<{ body: Buffer; etag: string }> | undefined;
  return {
    body,
    etag,
    headers: { 'Content-Type': ASSET_TYPES[extname(name)]!, ...headers },
    gzipped: () => (gzipped ??= gzipAsync(body).then((gz) => ({ body: gz, etag: `${etag.slice(0, -1)}-gz"` }))),
  };
}

const own = (name: string) => readFileSync(new URL(`../assets/${name}`, import.meta.url));

/**
 * The static files under /assets/: the stylesheet and the page scripts, the vocabulary they share with this package,
 * the C2PA reader's worker (under its own CSP), and c2pa-rs itself from @contentauth/c2pa-wasm, read when first asked.
 */
const SOURCES: Record<string, () => Asset> = {
  'style.css': () => asset('style.css', own('style.css')),
  'check.js': () => asset('check.js', own('check.js')),
  'credentials.js': () => asset('credentials.js', own('credentials.js')),
  'credentials-view.js': () => asset('credentials-view.js', own('credentials-view.js')),
  'vocabulary.js': () => asset('vocabulary.js', Buffer.from(vocabularyScript())),
  'c2pa-worker.js': () => asset('c2pa-worker.js', own('c2pa-worker.js'), { 'Content-Security-Policy': WORKER_CSP }),
  'c2pa/c2pa.js': () => asset('c2pa.js', readFileSync(require.resolve('@contentauth/c2pa-wasm'))),
  'c2pa/c2pa_bg.wasm': () => asset('c2pa_bg.wasm', readFileSync(require.resolve('@contentauth/c2pa-wasm/c2pa.wasm'))),
};

const loaded = new Map<string, Asset>();

function assetNamed(name: string): Asset | undefined {
  if (!Object.hasOwn(SOURCES, name)) return undefined;
  let found = loaded.get(name);
  if (!found) loaded.set(name, (found = SOURCES[name]!()));
  return found;
}

/** Whether the client takes gzip (a `q=0` refuses it). */
function acceptsGzip(req: IncomingMessage): boolean {
  const header = req.headers['accept-encoding'] ?? '';
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    return coding === 'gzip' && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });
}

/** Answers `/assets/<name>` when it is one of ours (cacheable for an hour, revalidated by ETag); false otherwise. */
export async function serveAsset(req: IncomingMessage, res: ServerResponse, name: string): Promise<boolean> {
  const found = assetNamed(name);
  if (!found) return false;
  const { body, etag } = acceptsGzip(req) ? await found.gzipped() : found;
  const encoding: Record<string, string> = body === found.body ? {} : { 'Content-Encoding': 'gzip' };
  send(req, res, {
    status: 200,
    headers: {
      ...PAGE_HEADERS,
      ...found.headers,
      ...encoding,
      'Cache-Control': 'public, max-age=3600',
      Vary: 'Accept-Encoding',
    },
    body,
    etag,
    validate: true,
  });
  return true;
}
