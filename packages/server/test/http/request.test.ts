import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientIpOf, PROXY_TOKEN_HEADER } from '../../src/http/request.ts';

const req = (headers: Record<string, string>) =>
  ({ headers, socket: { remoteAddress: '::ffff:127.0.0.1' } }) as unknown as IncomingMessage;
const TOKEN = 'f'.repeat(48);

describe('the client address', () => {
  it('is the socket peer unless a proxy is trusted', () => {
    expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9' }), false)).toBe('127.0.0.1');
    expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9, 10.0.0.1' }), true)).toBe('203.0.113.9');
  });

  it('trusts X-Forwarded-For from the in-process verification app only with its exact token', () => {
    expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9', [PROXY_TOKEN_HEADER]: TOKEN }), false, TOKEN)).toBe(
      '203.0.113.9',
    );
    for (const forged of ['', 'f'.repeat(47), `${'f'.repeat(47)}e`, 'x'.repeat(48)]) {
      expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9', [PROXY_TOKEN_HEADER]: forged }), false, TOKEN)).toBe(
        '127.0.0.1',
      );
    }
    expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9', [PROXY_TOKEN_HEADER]: TOKEN }), false, undefined)).toBe(
      '127.0.0.1',
    );
  });
});
