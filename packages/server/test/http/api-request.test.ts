import type { Server } from 'node:http';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { contextOf, mountFor, unexpectedFailure, type Api } from '../../src/http/api-request.ts';
import { listen, type Mount } from '../../src/http/server.ts';
import { createLogger } from '../../src/log.ts';

// One request's steps (http/api-request.ts), each reached on its own: which mount serves a path, which failures are
// logged as such, and the context a request's procedures see, read from a real request.
const mount = (prefix: string, pattern?: RegExp) => ({ prefix, pattern, handle: async () => undefined }) as Mount;

describe('the mount that serves a path', () => {
  // as the handler holds them: longest prefix first
  const mounts = [
    mount('/dashboard/api'),
    mount('/dashboard'),
    mount('/v1/attestations/:uid/c2pa', /^\/v1\/x\/[^/]+$/),
  ];

  it('is the first whose prefix the path is, or is under', () => {
    expect(mountFor(mounts, '/dashboard/api/session')).toBe(mounts[0]);
    expect(mountFor(mounts, '/dashboard/api')).toBe(mounts[0]);
    expect(mountFor(mounts, '/dashboard/')).toBe(mounts[1]);
    expect(mountFor(mounts, '/dashboard')).toBe(mounts[1]);
  });

  it('is none for a path that only begins with the same letters, or for any other', () => {
    expect(mountFor(mounts, '/dashboards')).toBeUndefined();
    expect(mountFor(mounts, '/v1/attestations')).toBeUndefined();
    expect(mountFor([], '/dashboard')).toBeUndefined();
  });

  it('is one with a pattern when the pattern matches, whatever its prefix', () => {
    expect(mountFor(mounts, '/v1/x/0xabc')).toBe(mounts[2]);
    expect(mountFor(mounts, '/v1/attestations/:uid/c2pa')).toBeUndefined();
  });
});

describe('a failed request', () => {
  it('is logged when no error of ours explains it and its answer is a 5xx', () => {
    expect(unexpectedFailure(new Error('boom'))).toBe(true);
    expect(unexpectedFailure(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: new Error('boom') }))).toBe(true);
  });

  it('is not logged for an error of ours (even a 503), one wrapped by tRPC, or a client’s mistake', () => {
    const ours = new AppError('CHAIN_UNAVAILABLE', 'the chain is away');
    expect(unexpectedFailure(ours)).toBe(false);
    expect(unexpectedFailure(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: ours }))).toBe(false);
    expect(unexpectedFailure(new TRPCError({ code: 'BAD_REQUEST' }))).toBe(false);
    expect(unexpectedFailure(new AppError('NOT_FOUND', 'nothing here'))).toBe(false);
  });
});

describe('the context of a request', () => {
  let server: Server;
  let url: string;
  const log = createLogger('silent');
  const services = { name: 'the services' };
  const api = { services, opts: { trustProxy: 1, log, publicBaseUrl: 'http://localhost' } } as unknown as Api;

  beforeAll(async () => {
    // a real request's context, as its procedures would see it (the services by identity)
    server = await listen(
      (req, res) => {
        const ctx = contextOf(api, req, 'req-1');
        const same = { services: ctx.services === services };
        res.end(JSON.stringify({ ...ctx, services: undefined, same }));
      },
      0,
      '127.0.0.1',
    );
    const address = server.address() as { port: number };
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('carries the services, the id of the request, the client address and the headers procedures read', async () => {
    const res = await fetch(`${url}/v1/anything`, {
      headers: {
        authorization: 'Bearer key',
        'idempotency-key': 'k-1',
        accept: 'text/csv',
        cookie: 'session=s',
        origin: 'https://example.com',
        'sec-fetch-site': 'cross-site',
        'x-account-id': 'acct',
        'x-forwarded-for': '198.51.100.7, 203.0.113.9',
      },
    });
    expect(await res.json()).toEqual({
      requestId: 'req-1',
      // TRUST_PROXY=1: the entry the one trusted proxy appended
      ip: '203.0.113.9',
      authorization: 'Bearer key',
      idempotencyKey: 'k-1',
      accept: 'text/csv',
      cookie: 'session=s',
      origin: 'https://example.com',
      fetchSite: 'cross-site',
      accountId: 'acct',
      responseHeaders: {},
      same: { services: true },
    });
  });

  it('leaves out the headers a request does not send; with no proxy in front, the address is the socket’s', async () => {
    const direct = { ...api, opts: { ...api.opts, trustProxy: 0 } } as Api;
    const req = { headers: { 'x-forwarded-for': '198.51.100.7' }, socket: { remoteAddress: '::ffff:127.0.0.1' } };
    const ctx = contextOf(direct, req as never, 'req-2');
    expect(ctx).toMatchObject({ ip: '127.0.0.1', authorization: undefined, idempotencyKey: undefined });
    expect(ctx.responseHeaders).toEqual({});
  });
});
