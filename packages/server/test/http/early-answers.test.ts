import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientError } from '../../src/http/client-error.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ worker: false });
});
afterAll(() => svc?.stop());

/** Sends raw bytes and returns everything the server writes until it closes the connection. */
function raw(base: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

function parse(response: string): { status: number; headers: string; body: unknown } {
  const [head, body] = response.split('\r\n\r\n', 2) as [string, string];
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) };
}

describe("Node's early answers carry the API's error body", () => {
  it('headers over the limit are 431 HEADERS_TOO_LARGE', async () => {
    const res = parse(await raw(svc.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ code: 'HEADERS_TOO_LARGE', message: expect.any(String), details: {} });
    expect(res.headers).toContain('content-type: application/json');
    expect(res.headers).toContain('connection: close');
  });

  it('a garbage request line is 400 MALFORMED_REQUEST', async () => {
    const res = parse(await raw(svc.url, 'HELLO THERE\r\n\r\n'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'MALFORMED_REQUEST', message: expect.any(String), details: {} });
  });

  it('a bad header line is 400 MALFORMED_REQUEST too', async () => {
    const res = parse(await raw(svc.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'));
    expect(res).toMatchObject({ status: 400, body: { code: 'MALFORMED_REQUEST' } });
  });

  it('a request whose headers never finish in time is 408 REQUEST_TIMEOUT (the handler, given the timeout error)', async () => {
    const socket = new PassThrough();
    let written = '';
    socket.on('data', (chunk: Buffer) => (written += chunk.toString()));
    answerClientError(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    await new Promise((resolve) => setImmediate(resolve));
    expect(parse(written)).toMatchObject({ status: 408, body: { code: 'REQUEST_TIMEOUT', details: {} } });
    expect(written).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('a reset connection gets nothing written, just closed', () => {
    const socket = new PassThrough();
    let written = false;
    socket.on('data', () => (written = true));
    answerClientError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }), socket);
    expect(written).toBe(false);
    expect(socket.destroyed).toBe(true);
  });

  it('the service still answers afterwards', async () => {
    const res = await fetch(`${svc.url}/healthz`);
    expect(res.status).toBe(200);
  });
});
