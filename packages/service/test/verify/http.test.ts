import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttestation, randomIp, revoke, startAnotherApp, startStack, type Stack } from './support.ts';

let stack: Stack;
let onchain: { uid: string; txHash: string | null };
let revoked: { uid: string };

beforeAll(async () => {
  stack = await startStack();
  const made = await createAttestation(stack.svc, {
    type: 'ai',
    content: `badge on-chain ${Math.random()}`,
    mode: 'onchain',
  });
  onchain = made.created;
  revoked = (
    await createAttestation(
      stack.svc,
      { type: 'human', content: `badge revoked ${Math.random()}`, mode: 'offchain' },
      made.key,
    )
  ).created;
  await revoke(stack.svc, revoked.uid, made.key);
}, 60_000);
afterAll(() => stack?.stop());

const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${stack.verify.url}${path}`, { method, headers: { 'x-forwarded-for': randomIp(), ...headers } });

describe('GET /api/attestation/<uid> (the JSON badge)', () => {
  it('matches the record the API serves, with verified true', async () => {
    const res = await get(`/api/attestation/${onchain.uid}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const badge: any = await res.json();
    const record: any = await (
      await fetch(`${stack.svc.url}/v1/attestations/${onchain.uid}`, { headers: { 'x-forwarded-for': randomIp() } })
    ).json();
    expect(badge).toEqual({
      uid: record.uid,
      type: 'ai',
      verified: true,
      revoked: false,
      mode: 'onchain',
      createdAt: record.createdAt,
      verifyUrl: record.verifyUrl,
      status: 'verified',
      anchor: null,
      claimant: {
        kind: 'service',
        address: record.attester,
        name: null,
        domain: null,
        verified: true,
        accountName: null,
      },
      digitalSourceType: record.digitalSourceType,
      digitalSourceTypeLabel: 'Trained algorithmic media (generative AI)',
      ai: null,
      statusList: { state: 'not-revoked', list: expect.stringMatching(/^\d+$/), index: expect.any(Number) },
      derivedFrom: [],
      derivedFromTruncated: false,
      onchainUid: null,
      offchainUid: null,
    });
    expect(badge.digitalSourceType).toBe('http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia');
    expect(badge.verifyUrl).toBe(`${stack.verify.url}/${onchain.uid}`);
  });

  it('says revoked (and not verified) for a revoked off-chain attestation', async () => {
    const badge: any = await (await get(`/api/attestation/${revoked.uid}`)).json();
    expect(badge).toMatchObject({
      uid: revoked.uid,
      type: 'human',
      mode: 'offchain',
      verified: false,
      revoked: true,
      status: 'revoked',
    });
  });

  it('answers 404 { code, message, details } for an unknown or malformed uid, never a 500', async () => {
    for (const uid of [`0x${'ef'.repeat(32)}`, 'nope', '0x1234', '%E0%A4%A', `0x${'zz'.repeat(32)}`]) {
      const res = await get(`/api/attestation/${uid}`);
      expect(res.status, uid).toBe(404);
      expect(await res.json()).toEqual({ code: 'NOT_FOUND', message: expect.any(String), details: expect.any(Object) });
    }
    expect((await get('/api/attestation/')).status).toBe(404);
  });

  it('is cacheable for a short time, with an ETag that answers If-None-Match with 304', async () => {
    const res = await get(`/api/attestation/${onchain.uid}`);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get(`/api/attestation/${onchain.uid}`, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await get(`/api/attestation/${onchain.uid}`, { 'if-none-match': '"other"' })).status).toBe(200);
    const svg = await get(`/api/attestation/${onchain.uid}/badge.svg`);
    expect(
      (await get(`/api/attestation/${onchain.uid}/badge.svg`, { 'if-none-match': `W/${svg.headers.get('etag')}` }))
        .status,
    ).toBe(304);
  });
});

describe('GET /api/attestation/<uid>/badge.svg', () => {
  it('is an SVG image saying what the verdict says', async () => {
    const verified = await get(`/api/attestation/${onchain.uid}/badge.svg`);
    expect(verified.status).toBe(200);
    expect(verified.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await verified.text()).toContain('AI-generated (trained model) · verified');
    expect(await (await get(`/api/attestation/${revoked.uid}/badge.svg`)).text()).toContain('>revoked<');
    const missing = await get(`/api/attestation/0x${'ef'.repeat(32)}/badge.svg`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await missing.text()).toContain('not found');
  });
});

describe('CORS and headers', () => {
  it('answers CORS preflight for the JSON and the SVG badge, and opens GET to every origin', async () => {
    for (const path of [`/api/attestation/${onchain.uid}`, `/api/attestation/${onchain.uid}/badge.svg`]) {
      const pre = await get(
        path,
        {
          origin: 'https://news.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'if-none-match',
        },
        'OPTIONS',
      );
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      expect(pre.headers.get('access-control-allow-methods')).toContain('GET');
      expect(pre.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('if-none-match');
      const res = await get(path, { origin: 'https://news.example' });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).not.toContain('frame-ancestors');
    }
    expect((await get(`/api/attestation/${onchain.uid}`, {}, 'POST')).status).toBe(405);
  });

  it('never reads a body: a declared 64 MiB one is answered 405 at once and its connection closed', async () => {
    const { port } = new URL(stack.verify.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
      const head = `POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n`;
      socket.write(`${head}{"a":`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 405/);
    expect(answer.toLowerCase()).toContain('connection: close');
  });

  it('sends the page with a CSP that allows no inline script or style and no framing', async () => {
    const res = await get(`/${onchain.uid}`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const body = await res.text();
    expect(body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(body).not.toMatch(/\sstyle=|<style/);
  });

  it('escapes what it renders: a media type carrying markup shows as text', async () => {
    const contentType = 'text/plain; name="<img src=x onerror=alert(1)>"';
    const { created } = await createAttestation(stack.svc, {
      type: 'human',
      content: `escape ${Math.random()}`,
      contentType,
      mode: 'offchain',
    });
    const body = await (await get(`/${created.uid}`)).text();
    expect(body).not.toContain('<img src=x');
    expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const check = await (await get(`/check?hash=%3Cscript%3Ealert(1)%3C%2Fscript%3E`)).text();
    expect(check).not.toContain('<script>alert');
  });
});

describe('when the chain does not answer', () => {
  it('says "cannot verify now" with 503 and Retry-After, never a verdict and never a 500', async () => {
    const blind = await startAnotherApp(stack, { rpcUrl: 'http://127.0.0.1:9', trustProxy: false }); // the discard port: connection refused
    try {
      const page = await fetch(`${blind.url}/${onchain.uid}`);
      expect(page.status).toBe(503);
      expect(await page.text()).toContain('data-verdict="unavailable"');
      const json = await fetch(`${blind.url}/api/attestation/${revoked.uid}`);
      expect(json.status).toBe(503);
      expect(json.headers.get('retry-after')).toBe('5');
      expect(json.headers.get('cache-control')).toBe('no-store');
      expect(await json.json()).toMatchObject({ code: 'UNAVAILABLE' });
      const svg = await fetch(`${blind.url}/api/attestation/${revoked.uid}/badge.svg`);
      expect([svg.status, await svg.text()]).toEqual([503, expect.stringContaining('cannot verify now')]);
    } finally {
      await blind.stop();
    }
  });
});

describe('rate limits', () => {
  it('limits badge calls per client IP, with Retry-After; other addresses are unaffected', async () => {
    const limited = await startAnotherApp(stack, { badgeLimitPerMinute: 3 });
    try {
      const ip = randomIp();
      const hit = (who: string) =>
        fetch(`${limited.url}/api/attestation/${onchain.uid}/badge.svg`, { headers: { 'x-forwarded-for': who } });
      for (let i = 0; i < 3; i++) expect((await hit(ip)).status).toBe(200);
      const refused = await hit(ip);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // an image URL answers an image, whatever happens
      expect(refused.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect(await refused.text()).toContain('attestation: retry later');
      const json = await fetch(`${limited.url}/api/attestation/${onchain.uid}`, { headers: { 'x-forwarded-for': ip } });
      expect(json.status).toBe(429);
      expect(await json.json()).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 3, windowSeconds: 60 } });
      expect((await hit(randomIp())).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  describe("when the API refuses the visitor's lookups (429)", () => {
    /** A visitor whose anonymous API bucket is spent; returns the Retry-After the API now gives them. */
    async function spendApiBucket(ip: string): Promise<number> {
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`${stack.svc.url}/v1/attestations/${onchain.uid}`, {
          headers: { 'x-forwarded-for': ip },
        });
        if (res.status === 429) return Number(res.headers.get('retry-after'));
      }
      throw new Error('the API never rate-limited this address');
    }
    const freshUid = () =>
      `0x${[...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
    const expectApiWait = (res: Response, apiWait: number) => {
      const wait = Number(res.headers.get('retry-after'));
      expect(Math.abs(wait - apiWait), `Retry-After ${wait} vs the API's ${apiWait}`).toBeLessThanOrEqual(1);
      return wait;
    };

    it("says so on the attestation page and the check page: 429, the API's Retry-After, when to come back", async () => {
      const ip = randomIp();
      const apiWait = await spendApiBucket(ip);
      const started = Date.now();
      const page = await get(`/${freshUid()}`, { 'x-forwarded-for': ip });
      expect(Date.now() - started).toBeLessThan(5_000); // one quick retry at most, not Retry-After's wait
      expect(page.status).toBe(429);
      const wait = expectApiWait(page, apiWait);
      const html = await page.text();
      expect(html).toContain('data-verdict="rate-limited"');
      expect(html).toContain(`Too many lookups from your address right now. Try again in ${wait} seconds.`);
      expect(html).not.toContain('did not answer');
      const check = await get(`/check?hash=0x${'ab'.repeat(32)}`, { 'x-forwarded-for': ip });
      expect(check.status).toBe(429);
      expectApiWait(check, apiWait);
      expect(await check.text()).toMatch(/Too many lookups from your address right now\. Try again in \d+ seconds?\./);
      // another visitor is not affected
      expect((await get(`/${onchain.uid}`)).status).toBe(200);
    });

    it('answers the JSON badge 429 RATE_LIMITED and badge.svg a "retry later" SVG, neither cached', async () => {
      const ip = randomIp();
      const apiWait = await spendApiBucket(ip);
      const json = await get(`/api/attestation/${freshUid()}`, { 'x-forwarded-for': ip });
      expect(json.status).toBe(429);
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(json.headers.get('cache-control')).toBe('no-store');
      const wait = expectApiWait(json, apiWait);
      expect(await json.json()).toEqual({
        code: 'RATE_LIMITED',
        message: expect.stringContaining(`Try again in ${wait} seconds`),
        details: { retryAfterSeconds: wait },
      });
      const svg = await get(`/api/attestation/${freshUid()}/badge.svg`, { 'x-forwarded-for': ip });
      expect(svg.status).toBe(429);
      expect(svg.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
      expect(svg.headers.get('cache-control')).toBe('no-store');
      expectApiWait(svg, apiWait);
      const image = await svg.text();
      expect(image).toMatch(/^<svg /);
      expect(image).toContain('attestation: retry later');
    });
  });
});
