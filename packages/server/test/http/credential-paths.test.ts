import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedPath } from '../../src/http/logged-path.ts';
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

describe('paths that carry a credential', () => {
  it('log the prefix only, for an invitation or reset path served or not', async () => {
    const token = `tok${Math.random().toString(36).slice(2)}secret`;
    const paths = [
      `/dashboard/invite/${token}`,
      `/dashboard/invite/${token}/extra?x=${token}`,
      `/DASHBOARD/Invite/${token}`,
      `/dashboard/api/auth/reset-password/${token}?callbackURL=%2F`,
    ];
    for (const [i, path] of paths.entries())
      await call(service.apiUrl, 'GET', path, { headers: { 'x-request-id': `credential-path-${i}` } });
    for (const i of paths.keys()) {
      const [line] = lines.filter((l) => l.msg === 'request' && l.requestId === `credential-path-${i}`);
      expect(line?.path).toMatch(/^\/dashboard\/(invite|api\/auth\/reset-password)\/\[redacted\]$/i);
    }
    expect(raw.join('\n')).not.toContain(token);
  });

  it('leave every other path as it was, without its query', () => {
    const prefixes = ['/dashboard/invite/'];
    expect(loggedPath('/dashboard/invite/abc?x=1', prefixes)).toBe('/dashboard/invite/[redacted]');
    expect(loggedPath('/dashboard/invite/', prefixes)).toBe('/dashboard/invite/');
    expect(loggedPath('/dashboard/invitations?token=abc', prefixes)).toBe('/dashboard/invitations');
    expect(loggedPath('/v1/attestations/0xabc', prefixes)).toBe('/v1/attestations/0xabc');
    expect(loggedPath(undefined, prefixes)).toBe('/');
  });
});
