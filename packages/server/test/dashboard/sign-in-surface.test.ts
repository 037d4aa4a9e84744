import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredVerifications } from '../../src/dashboard/session-store.ts';
import { USER_AGENT_MAX } from '../../src/dashboard/auth-mount.ts';
import { randomIp, type TestService } from '../support/service.ts';
import { createMember, signIn, signUp, startDashboardService } from './support.ts';

const AUTH = '/dashboard/api/auth';

describe('the dashboard sign-in surface', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startDashboardService();
  });
  afterAll(() => service.stop());

  /** A POST to better-auth's endpoint as the dashboard's client sends it (JSON, same origin), body as given. */
  async function post(path: string, body: string, headers: Record<string, string> = {}) {
    const res = await fetch(`${service.url}${AUTH}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: service.config.publicBaseUrl,
        'x-forwarded-for': randomIp(),
        ...headers,
      },
      body,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  describe('body limit', () => {
    it('answers a declared 64 MiB body with 413 at once, closing the connection, without reading it', async () => {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('end', () => resolve(data));
        socket.on('error', reject);
        socket.write(
          `POST ${AUTH}/sign-in/email HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
            `Content-Length: ${64 * 1024 * 1024}\r\n\r\n{"password":"`,
        );
      });
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
    });

    it('stops at 1 MiB of a body sent without a declared length', async () => {
      const password = 'p'.repeat(2 * 1024 * 1024);
      const chunked = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(JSON.stringify({ email: 'a@example.com', password })));
          controller.close();
        },
      });
      const res = await fetch(`${service.url}${AUTH}/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: service.config.publicBaseUrl },
        body: chunked,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limitBytes: 1024 * 1024 } });
    });
  });

  describe('input rules', () => {
    it('refuses an email that is not text with 400 VALIDATION_FAILED, on sign-in and sign-up', async () => {
      const deep = JSON.stringify(Array.from({ length: 40 }).reduce<unknown>((inner) => [inner], 'x'));
      for (const path of ['/sign-in/email', '/sign-up/email']) {
        for (const email of ['{"toString":1}', '["a@example.com"]', deep]) {
          const res = await post(path, `{"email":${email},"password":"long-enough-pw","name":"N"}`);
          expect(res.status, `${path} ${email.slice(0, 20)}`).toBe(400);
          expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: expect.any(Array) } });
        }
      }
    });

    it('refuses NUL in a display name, an image or a session token with 400 VALIDATION_FAILED', async () => {
      const member = await createMember(service, 'viewer');
      const asMember = { cookie: member.cookie };
      for (const [path, body] of [
        ['/update-user', { name: 'a\u0000b' }],
        ['/update-user', { image: 'https://example.com/\u0000.png' }],
        ['/revoke-session', { token: 'tok\u0000en' }],
        ['/update-user', { name: 'lone \ud800 surrogate' }],
      ] as const) {
        const res = await post(path, JSON.stringify(body), asMember);
        expect(res.status, path).toBe(400);
        expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.any(String), details: {} });
      }
      const query = await fetch(`${service.url}${AUTH}/error?error=a%00b`);
      expect(query.status).toBe(400);
    });

    it('answers malformed JSON with 400 INVALID_JSON and a body that is not JSON with 415', async () => {
      const malformed = await post('/sign-in/email', '{"email":');
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ code: 'INVALID_JSON', details: {} });
      const form = await post('/sign-in/email', 'email=a%40example.com&password=x', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(form.status).toBe(415);
      expect(form.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    });
  });

  describe('length caps', () => {
    it('refuses a display name over 100 characters with 400 VALIDATION_FAILED naming it, and keeps the old one', async () => {
      const member = await createMember(service, 'viewer');
      const res = await post('/update-user', JSON.stringify({ name: 'n'.repeat(101) }), { cookie: member.cookie });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ path: 'name' }] } });
      const ok = await post('/update-user', JSON.stringify({ name: 'n'.repeat(100) }), { cookie: member.cookie });
      expect(ok.status).toBe(200);
      const row = await service.db
        .selectFrom('users')
        .select('name')
        .where('id', '=', member.userId)
        .executeTakeFirstOrThrow();
      expect(row.name).toBe('n'.repeat(100));
    });

    it('caps the image URL, the email and the password, naming each field', async () => {
      const member = await createMember(service, 'viewer');
      const image = await post('/update-user', JSON.stringify({ image: `https://e.example/${'i'.repeat(2048)}` }), {
        cookie: member.cookie,
      });
      expect(image.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ path: 'image' }] } });
      const up = await signUp(service, {
        email: `${'e'.repeat(250)}@example.com`,
        password: 'long-enough-pw',
        name: 'N',
      });
      expect(up.status).toBe(400);
      expect(up.body).toMatchObject({ details: { errors: [{ path: 'email' }] } });
      const long = await signIn(service, { email: member.email, password: 'p'.repeat(257) });
      expect(long.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { errors: [{ path: 'password' }] } });
    });
  });

  it('keeps at most USER_AGENT_MAX characters of a user agent with a session', async () => {
    const member = await createMember(service, 'viewer');
    const agent = `Mozilla/5.0 ${'x'.repeat(8000)}`;
    const signedIn = await signIn(service, { email: member.email, password: member.password }, { 'user-agent': agent });
    expect(signedIn.status).toBe(200);
    const rows = await service.db
      .selectFrom('sessions')
      .select('userAgent')
      .where('userId', '=', member.userId)
      .execute();
    expect(Math.max(...rows.map((r) => r.userAgent?.length ?? 0))).toBe(USER_AGENT_MAX);
  });

  it("serves better-auth's HTML error page with the dashboard's headers: a CSP, no framing, no sniffing", async () => {
    const res = await fetch(`${service.url}${AUTH}/error?error=unknown`);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('content-security-policy')).not.toMatch(/unsafe-inline/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  describe('passkey challenges', () => {
    const options = (forwardedFor: string) =>
      fetch(`${service.url}${AUTH}/passkey/generate-authenticate-options`, {
        headers: { 'x-forwarded-for': forwardedFor },
      });

    it('limits anonymous option requests per address, whatever the client writes before the proxy entry', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await options(`${randomIp()}, 203.0.113.77`)).status);
      expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
      expect(statuses.slice(10)).toEqual([429, 429]);
    });

    it('deletes challenge rows past their expiry and keeps the live ones', async () => {
      expect((await options(randomIp())).status).toBe(200);
      expect((await options(randomIp())).status).toBe(200);
      const [expired, live] = (
        await service.db.selectFrom('verifications').select('id').orderBy('createdAt', 'desc').limit(2).execute()
      ).map((row) => row.id);
      await service.db
        .updateTable('verifications')
        .set({ expiresAt: new Date(Date.now() - 1_000) })
        .where('id', '=', expired!)
        .execute();
      expect(await deleteExpiredVerifications(service.infrastructure.db, new Date())).toBeGreaterThanOrEqual(1);
      const left = await service.db
        .selectFrom('verifications')
        .select('id')
        .where('id', 'in', [expired!, live!])
        .execute();
      expect(left.map((r) => r.id)).toEqual([live]);
    });
  });

  it('answers an uninvited sign-up for a registered email exactly as for an unknown one, in comparable time', async () => {
    const member = await createMember(service, 'viewer');
    const attempt = async (email: string) => {
      const started = performance.now();
      const res = await signUp(service, { email, password: 'long-enough-pw', name: 'N' });
      return { ms: performance.now() - started, status: res.status, body: res.body };
    };
    const known: Awaited<ReturnType<typeof attempt>>[] = [];
    const unknown: Awaited<ReturnType<typeof attempt>>[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await attempt(member.email));
      unknown.push(await attempt(`nobody-${i}-${Date.now()}@example.com`));
    }
    for (const answer of [...known, ...unknown]) {
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: unknown[0]!.status,
        body: unknown[0]!.body,
      });
    }
    expect(unknown[0]).toMatchObject({ status: 403, body: { code: 'FORBIDDEN', details: {} } });
    const median = (xs: { ms: number }[]) => xs.map((x) => x.ms).sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [fast, slow] = [median(known), median(unknown)].sort((a, b) => a - b);
    expect(slow! / fast!).toBeLessThan(2.5);
  });
});
