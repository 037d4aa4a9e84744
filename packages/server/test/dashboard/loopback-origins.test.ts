import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardOrigins } from '../../src/dashboard/origins.ts';
import { createMember, signIn, startDashboardService, trpc } from './support.ts';
import type { TestService } from '../support/service.ts';

describe('dashboardOrigins', () => {
  it('adds the other loopback names on the same port, and nothing to a public address', () => {
    expect(dashboardOrigins('http://localhost:8080')).toEqual([
      'http://localhost:8080',
      'http://127.0.0.1:8080',
      'http://[::1]:8080',
    ]);
    expect(dashboardOrigins('http://127.0.0.1:9000/')).toEqual([
      'http://127.0.0.1:9000',
      'http://localhost:9000',
      'http://[::1]:9000',
    ]);
    expect(dashboardOrigins('https://api.example.com')).toEqual(['https://api.example.com']);
  });
});

describe('the dashboard at both loopback names', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startDashboardService();
  });
  afterAll(() => svc?.stop());

  it('signs in and changes things from 127.0.0.1 as from localhost; another origin is refused', async () => {
    const member = await createMember(svc, 'owner');
    const port = new URL(svc.config.publicBaseUrl).port;
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      const signed = await signIn(svc, member, { origin });
      expect(signed.status, origin).toBe(200);
      // a change (signing out a session that is not there): past the cross-site check, so not 403
      const change = (from: string) =>
        trpc(svc, 'dashboard.session.revokeSession', {
          cookie: signed.cookie,
          mutation: true,
          input: { id: randomUUID() },
          headers: { origin: from },
        });
      expect((await change(origin)).status, origin).not.toBe(403);
      expect((await change('http://evil.example')).status).toBe(403);
      expect((await change(`http://localhost:${Number(port) + 1}`)).status).toBe(403);
    }
  });
});
