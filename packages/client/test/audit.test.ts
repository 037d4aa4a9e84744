import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../../server/test/support/service.ts';
import { JsonArrayParser } from '../src/audit.ts';
import { AttestationServiceError, createClient, type AuditEntry } from '../src/index.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

async function caught(promise: Promise<unknown>): Promise<AttestationServiceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AttestationServiceError);
  return error as AttestationServiceError;
}

describe('JsonArrayParser', () => {
  it('yields the same elements as JSON.parse wherever the text is cut', () => {
    const value = [{ a: 1, s: 'br]ack{et "q" \\ é ☃' }, { nested: { list: [1, [2, { x: ']' }]] } }, { empty: {} }, []];
    const text = `[\n${value.map((v) => JSON.stringify(v)).join(',\n')}\n]\n`;
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new JsonArrayParser();
      const out = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(out).toEqual(value);
      expect(parser.complete).toBe(true);
    }
    const oneByOne = new JsonArrayParser();
    expect([...text].flatMap((c) => oneByOne.push(c))).toEqual(value);
  });

  it('knows an array that has not ended, and rejects what is not an array', () => {
    const parser = new JsonArrayParser();
    expect(parser.push('[{"a":1},{"b"')).toEqual([{ a: 1 }]);
    expect(parser.complete).toBe(false);
    expect(() => new JsonArrayParser().push('{"code":"X"}')).toThrow(SyntaxError);
  });
});

describe('SDK: audit.export', () => {
  it("streams the account's entries as typed objects, the same as the REST export", async () => {
    const { key } = await svc.createKey('pro');
    for (let i = 0; i < 3; i++)
      await call(svc.url, 'POST', '/v1/attestations', {
        key,
        body: { type: 'ai', content: `sdk audit ${i}`, contentType: 'text/plain', mode: 'offchain' },
      });
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    const entries: AuditEntry[] = await collect(client.audit.export());
    expect(entries.map((e) => e.action)).toEqual([
      'api_key.created',
      'attestation.created',
      'attestation.created',
      'attestation.created',
    ]);
    const rest = (await call(svc.url, 'GET', '/v1/audit/export', { key })).body;
    expect(entries).toEqual(rest);
    expect(entries[1]!.prevHash).toBe(entries[0]!.hash);

    const filtered = await collect(
      client.audit.export({
        action: 'api_key.created',
        from: new Date(Date.now() - 3_600_000),
        to: new Date(Date.now() + 60_000),
      }),
    );
    expect(filtered.map((e) => e.action)).toEqual(['api_key.created']);
  });

  it('stops cleanly when the caller breaks out early', async () => {
    const { key } = await svc.createKey('pro');
    const client = createClient({ baseUrl: svc.url, apiKey: key });
    for await (const entry of client.audit.export()) {
      expect(entry.action).toBe('api_key.created');
      break;
    }
  });

  it('throws typed errors: a revoked key, a bad range', async () => {
    const revoked = await svc.createKey('pro');
    await svc.services.keys.revoke(revoked.prefix);
    const denied = await caught(collect(createClient({ baseUrl: svc.url, apiKey: revoked.key }).audit.export()));
    expect(denied).toMatchObject({ code: 'API_KEY_REVOKED', status: 401 });
    const { key } = await svc.createKey('pro');
    const invalid = await caught(
      collect(
        createClient({ baseUrl: svc.url, apiKey: key }).audit.export({
          from: '2026-02-01T00:00:00Z',
          to: '2026-01-01T00:00:00Z',
        }),
      ),
    );
    expect(invalid.is('VALIDATION_FAILED') && invalid.details.errors[0]!.path).toBe('from');
  });

  it('reports an export cut off mid-stream as NETWORK_ERROR, after the entries that did arrive', async () => {
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[\n{"id":"1","action":"a"},\n{"id":"2","act');
      setTimeout(() => res.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = createClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: 'svc_pro_000000000000_00000000000000000000000000000000',
        retry: { maxRetries: 0 },
      });
      const seen: string[] = [];
      const error = await caught(
        (async () => {
          for await (const entry of client.audit.export()) seen.push(entry.id);
        })(),
      );
      expect(seen).toEqual(['1']);
      expect(error).toMatchObject({
        code: 'NETWORK_ERROR',
        message: expect.stringContaining('cut off after 1 entries'),
      });
    } finally {
      server.close();
    }
  });
});
