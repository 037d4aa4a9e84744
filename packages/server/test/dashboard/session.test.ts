import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.ts';
import { createMember, signIn, signUp, startDashboardService, trpc } from './support.ts';

describe('dashboard sessions', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startDashboardService();
  });
  afterAll(() => service.stop());

  it('answers session.me for a signed-in member, with their account and role', async () => {
    const member = await createMember(service, 'developer');
    const me = await trpc(service, 'dashboard.session.me', { cookie: member.cookie });
    expect(me.status).toBe(200);
    expect(me.body.result.data).toMatchObject({
      user: { email: member.email },
      memberships: [{ accountId: member.accountId, role: 'developer', plan: 'free' }],
      support: false,
      signup: 'closed',
      // WEBHOOK_ALLOW_PRIVATE_URLS is off by default: the webhook form says loopback receivers are refused
      webhookPrivateUrls: false,
    });
    expect(me.headers.get('cache-control')).toBe('no-store');
  });

  it('tells anyone whether sign-up is open, without a session', async () => {
    const res = await trpc(service, 'dashboard.session.signup', {});
    expect(res.status).toBe(200);
    expect(res.body.result.data).toEqual({ signup: 'closed' });
  });

  it('refuses a call without a session with 401 UNAUTHENTICATED', async () => {
    const me = await trpc(service, 'dashboard.session.me', {});
    expect(me.status).toBe(401);
    expect(me.body.error.data).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('sets HttpOnly, SameSite=Lax session cookies', async () => {
    const member = await createMember(service, 'viewer');
    const res = await fetch(`${service.url}/dashboard/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: service.config.publicBaseUrl },
      body: JSON.stringify({ email: member.email, password: member.password }),
    });
    expect(res.status).toBe(200);
    const cookies = res.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) {
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
    }
  });

  it('refuses a sign-up without an invitation while sign-up is closed', async () => {
    const up = await signUp(service, { email: 'stranger@example.com', password: 'long-enough-pw', name: 'S' });
    expect(up.status).toBe(403);
    const bad = await signUp(
      service,
      { email: 'stranger2@example.com', password: 'long-enough-pw', name: 'S' },
      'A'.repeat(43),
    );
    expect(bad.status).toBe(403);
  });

  it('signs a revoked session out at its next request', async () => {
    const member = await createMember(service, 'viewer');
    const second = await signIn(service, member);
    expect((await trpc(service, 'dashboard.session.me', { cookie: second.cookie })).status).toBe(200);
    const out = await fetch(`${service.url}/dashboard/api/auth/revoke-other-sessions`, {
      method: 'POST',
      headers: { cookie: member.cookie, 'content-type': 'application/json', origin: service.config.publicBaseUrl },
      body: '{}',
    });
    expect(out.status).toBe(200);
    expect((await trpc(service, 'dashboard.session.me', { cookie: second.cookie })).status).toBe(401);
    expect((await trpc(service, 'dashboard.session.me', { cookie: member.cookie })).status).toBe(200);
  });

  it('limits sign-in attempts per email, whatever the address', async () => {
    const member = await createMember(service, 'viewer');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await signIn(
        service,
        { email: member.email, password: 'wrong-password-x' },
        { 'x-forwarded-for': `203.0.113.${i + 1}` },
      );
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});
