import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/main.ts';
import { call } from '../support/service.ts';
import { startLoggedService, type LogLine } from './log-capture.ts';

let service: RunningService;
let lines: LogLine[];
let raw: string[];

beforeAll(async () => {
  ({ service, lines, raw } = await startLoggedService());
});
afterAll(() => service?.stop());

describe('a child logger per request', () => {
  it("binds the request's id to its access line, the caller's id or a minted one", async () => {
    const { key } = await service.services.keys.create({ tier: 'free', account: 'request-log' });
    const given = await call(service.apiUrl, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-abc.1' } });
    expect(given.headers.get('x-request-id')).toBe('trace-abc.1');
    const minted = await call(service.apiUrl, 'POST', '/v1/attestations', {
      key,
      body: { type: 'ai', content: 'logged', contentType: 'text/plain', mode: 'offchain' },
    });
    const mintedId = minted.headers.get('x-request-id')!;
    const trpc = await call(service.apiUrl, 'GET', '/trpc/system.health?input=%7B%7D', {
      headers: { 'x-request-id': 'trace-trpc' },
    });
    expect(trpc.status).toBe(200);

    const access = (id: string) => lines.filter((line) => line.msg === 'request' && line.requestId === id);
    expect(access('trace-abc.1')).toEqual([expect.objectContaining({ method: 'GET', path: '/healthz', status: 200 })]);
    expect(access(mintedId)).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/attestations', status: 201 }),
    ]);
    expect(access('trace-trpc')).toEqual([expect.objectContaining({ path: '/trpc/system.health', status: 200 })]);
    // every line written while serving a request names one, once
    for (const line of raw.filter((l) => l.includes('"msg":"request"')))
      expect(line.match(/"requestId"/g)).toHaveLength(1);
  });
});
