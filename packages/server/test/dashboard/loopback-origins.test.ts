import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardOff, dashboardOrigins } from '../../src/dashboard/origins.ts';
import { createMember, signIn, startDashboardService, trpc } from './support.ts';
import { startTestService, type TestService } from '../support/service.ts';

const dev = (publicBaseUrl: string, origins: string[] = []) => ({
  publicBaseUrl,
  productionBecause: undefined,
  dashboard: { origins, publicBaseUrlSet: false },
});
const prod = (publicBaseUrl: string, set: boolean, origins: string[] = []) => ({
  publicBaseUrl,
  productionBecause: 'NODE_ENV=production',
  dashboard: { origins, publicBaseUrlSet: set },
});

describe('dashboardOrigins', () => {
  it('adds the other loopback names on the same port, and nothing to a public address', () => {
    expect(dashboardOrigins(dev('http://localhost:8080'))).toEqual([
      'http://localhost:8080',
      'http://127.0.0.1:8080',
      'http://[::1]:8080',
    ]);
    expect(dashboardOrigins(dev('http://127.0.0.1:9000/'))).toEqual([
      'http://127.0.0.1:9000',
      'http://localhost:9000',
      'http://[::1]:9000',
    ]);
    expect(dashboardOrigins(dev('https://api.example.com'))).toEqual(['https://api.example.com']);
  });

  it('adds DASHBOARD_ORIGINS; in production only what the operator set, and none when PUBLIC_BASE_URL is not', () => {
    expect(dashboardOrigins(prod('https://api.example.com', true, ['https://dash.example.com']))).toEqual([
      'https://api.example.com',
      'https://dash.example.com',
    ]);
    // the development default http://localhost:8080 is no deployment's address: the dashboard is off, and says why
    const unset = prod('http://localhost:8080', false, ['https://dash.example.com']);
    expect(dashboardOrigins(unset)).toEqual([]);
    expect(dashboardOff(unset)).toMatch(/set PUBLIC_BASE_URL .* required when NODE_ENV=production/);
    expect(dashboardOff(prod('https://api.example.com', true))).toBeUndefined();
    expect(dashboardOff(dev('http://localhost:8080'))).toBeUndefined();
  });
});

describe('a deployment without PUBLIC_BASE_URL', () => {
  let svc: TestService;
  beforeAll(async () => {
    // DATABASE_URL makes it a deployment (Config.productionBecause); no PUBLIC_BASE_URL
    svc = await startTestService({ worker: false });
  });
  afterAll(() => svc?.stop());

  it('answers every dashboard sign-in call 503, naming the settings; the API is unaffected', async () => {
    const res = await fetch(`${svc.url}/dashboard/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: svc.config.publicBaseUrl },
      body: JSON.stringify({ email: 'a@example.com', password: 'correct horse battery staple' }),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.message).toContain('PUBLIC_BASE_URL');
    expect(body.message).toContain('DASHBOARD_ORIGINS');
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  });
});

describe('DASHBOARD_ORIGINS', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startDashboardService({ env: { DASHBOARD_ORIGINS: 'https://dash.example.com' } });
  });
  afterAll(() => svc?.stop());

  it('takes changes from an origin it lists; one it does not is refused', async () => {
    const member = await createMember(svc, 'owner');
    const signed = await signIn(svc, member, { origin: 'https://dash.example.com' });
    expect(signed.status).toBe(200);
    const change = (origin: string) =>
      trpc(svc, 'dashboard.session.revokeSession', {
        cookie: signed.cookie,
        mutation: true,
        input: { id: randomUUID() },
        headers: { origin },
      });
    expect((await change('https://dash.example.com')).status).not.toBe(403);
    expect((await change('https://other.example.com')).status).toBe(403);
  });
});
