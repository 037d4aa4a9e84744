import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientIpOf, PROXY_TOKEN_HEADER } from '../../src/http/request.ts';

const req = (headers: Record<string, string>) =>
  ({ headers, socket: { remoteAddress: '::ffff:127.0.0.1' } }) as unknown as IncomingMessage;
const TOKEN = 'f'.repeat(48);

describe('the client address', () => {
  it('is the socket peer unless a proxy is trusted', () => {
    expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9' }), 0)).toBe('127.0.0.1');
    expect(clientIpOf(req({}), 1)).toBe('127.0.0.1');
  });

  it('is the entry the trusted proxy appended, never one the client wrote before it', () => {
    // the client sent "X-Forwarded-For: 6.6.6.6"; the one proxy in front appended the address it saw
    expect(clientIpOf(req({ 'x-forwarded-for': '6.6.6.6, 203.0.113.9' }), 1)).toBe('203.0.113.9');
    expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9' }), 1)).toBe('203.0.113.9');
  });

  it('counts TRUST_PROXY hops from the right', () => {
    const chain = { 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.0.0.2' };
    expect(clientIpOf(req(chain), 2)).toBe('203.0.113.9');
    expect(clientIpOf(req(chain), 3)).toBe('6.6.6.6');
    // a chain shorter than the hops ends at its left-most entry
    expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9' }), 2)).toBe('203.0.113.9');
    expect(clientIpOf(req({ 'x-forwarded-for': ' , ' }), 1)).toBe('127.0.0.1');
  });

  it('trusts X-Forwarded-For from the in-process verification app only with its exact token', () => {
    expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9', [PROXY_TOKEN_HEADER]: TOKEN }), 0, TOKEN)).toBe(
      '203.0.113.9',
    );
    for (const forged of ['', 'f'.repeat(47), `${'f'.repeat(47)}e`, 'x'.repeat(48)]) {
      expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9', [PROXY_TOKEN_HEADER]: forged }), 0, TOKEN)).toBe(
        '127.0.0.1',
      );
    }
    expect(clientIpOf(req({ 'x-forwarded-for': '203.0.113.9', [PROXY_TOKEN_HEADER]: TOKEN }), 0, undefined)).toBe(
      '127.0.0.1',
    );
  });
});
