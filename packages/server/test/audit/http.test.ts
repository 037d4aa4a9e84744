import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditExport, type PageSource } from '../../src/audit/export.ts';
import { sendStreamed } from '../../src/http/streamed.ts';
import type { AuditEntry } from '../../src/audit/contracts.ts';
import { call, startTestService, type TestService } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';
import { exportOf } from './support.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

/** A page source from fixed pages (or a failure), rendered the way keysetPages gives them (JSON lines here). */
function pagesOf(produce: () => AsyncGenerator<AuditEntry[]>): PageSource {
  return async function* () {
    for await (const page of produce()) yield page.map((e) => JSON.stringify(e));
  };
}

const entry = (id: number): AuditEntry => ({
  id: String(id),
  accountId: 'a',
  at: new Date(0).toISOString(),
  action: 'x',
  actorKeyPrefix: null,
  resource: 'r',
  outcome: 'success',
  ip: null,
  requestId: null,
  details: {},
  prevHash: '0',
  hash: '1',
});

/** A server whose only route streams `exp` the way the REST layer does, answering a thrown error as the layer would. */
async function serving(exp: AuditExport): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    sendStreamed(req, res, exp, {}).catch(() => {
      if (res.headersSent) res.destroy();
      else res.writeHead(500, { 'content-type': 'application/json' }).end('{"code":"INTERNAL_ERROR"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('streaming the export', () => {
  it('answers a failure before the first byte with an error status, not a broken body', async () => {
    const failing = new AuditExport({
      format: 'json',
      filename: 'f.json',
      pages: pagesOf(async function* () {
        yield* [];
        throw new Error('database down');
      }),
    });
    const { url, server } = await serving(failing);
    try {
      const res = await fetch(url);
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ code: 'INTERNAL_ERROR' });
    } finally {
      server.close();
    }
  });

  it('aborts the connection on a failure after the first byte, so the client cannot mistake it for a whole export', async () => {
    const halfway = new AuditExport({
      format: 'json',
      filename: 'f.json',
      pages: pagesOf(async function* () {
        yield [entry(1), entry(2)];
        await new Promise((r) => setTimeout(r, 20)); // on purpose: the failure comes after the first bytes went out
        throw new Error('database gone mid-way');
      }),
    });
    const { url, server } = await serving(halfway);
    try {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
    } finally {
      server.close();
    }
  });

  it('waits for drain: a slow reader gets every page of a large export intact', async () => {
    const pages = 50;
    const big = new AuditExport({
      format: 'json',
      filename: 'f.csv',
      pages: pagesOf(async function* () {
        for (let p = 0; p < pages; p++) yield Array.from({ length: 1000 }, (_, i) => entry(p * 1000 + i));
      }),
    });
    const { url, server } = await serving(big);
    try {
      const res = await fetch(url);
      const reader = res.body!.getReader();
      let bytes = '';
      const decoder = new TextDecoder();
      for (let n = 0; ; n++) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += decoder.decode(value, { stream: true });
        if (n % 20 === 0) await new Promise((r) => setTimeout(r, 5)); // a reader slower than the writer
      }
      const entries = JSON.parse(bytes);
      expect(entries).toHaveLength(pages * 1000);
      expect(entries.at(-1).id).toBe(String(pages * 1000 - 1));
    } finally {
      server.close();
    }
  });

  it('stops reading pages when the client goes away', async () => {
    let pagesRead = 0;
    let closed = false;
    const endless = new AuditExport({
      format: 'json',
      filename: 'f.json',
      pages: pagesOf(async function* () {
        try {
          for (let p = 0; ; p++) {
            pagesRead++;
            yield Array.from({ length: 100 }, (_, i) => entry(p * 100 + i));
            await new Promise((r) => setTimeout(r, 1)); // on purpose: a source that never ends, a page at a time
          }
        } finally {
          closed = true;
        }
      }),
    });
    const { url, server } = await serving(endless);
    try {
      const controller = new AbortController();
      const res = await fetch(url, { signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await waitFor(() => closed, { timeout: 5_000, what: 'the export to stop reading' });
      const seen = pagesRead;
      // a fixed wait on purpose: that no page is read after it stopped only time can show
      await new Promise((r) => setTimeout(r, 300));
      expect(closed).toBe(true);
      expect(pagesRead).toBe(seen);
    } finally {
      server.close();
    }
  });
});

describe('GET /v1/audit/export over HTTP', () => {
  it('answers HEAD with the headers only', async () => {
    const { key } = await svc.createKey('pro');
    const res = await fetch(`${svc.url}/v1/audit/export?format=csv`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-.+\.csv"$/);
    expect(await res.text()).toBe('');
  });

  it('over /trpc, a non-streaming call is refused (415), never answered 200 with an empty body', async () => {
    const { key } = await svc.createKey('pro');
    const res = await fetch(`${svc.url}/trpc/audit.export?input=${encodeURIComponent('{}')}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(415);
  });

  it("carries the rate-limit fields of the caller's key", async () => {
    const { key } = await svc.createKey('pro');
    const res = await exportOf(svc, key);
    expect(res.headers.get('ratelimit-policy')).toBe('"key";q=600;w=60');
  });

  it('is described in /openapi.json as a JSON array of AuditEntry or CSV, as a download', async () => {
    const doc = (await call(svc.url, 'GET', '/openapi.json')).body;
    const op = doc.paths['/v1/audit/export'].get;
    expect(op.responses['200'].content['application/json'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/AuditEntry' },
    });
    expect(op.responses['200'].content['text/csv'].schema.type).toBe('string');
    expect(op.responses['200'].headers['Content-Disposition']).toBeDefined();
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '406', '429']));
    expect(op.responses['501']).toBeUndefined();
    expect(Object.keys(doc.components.schemas.AuditEntry.properties)).toEqual([
      'id',
      'accountId',
      'at',
      'action',
      'actorKeyPrefix',
      'resource',
      'outcome',
      'ip',
      'requestId',
      'details',
      'prevHash',
      'hash',
    ]);
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['action', 'format', 'from', 'to']);
  });
});
