import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { attest, contentCredentials, fixture, readBack, signerEnv } from './c2pa-reader.ts';
import { startLocalTsa } from './local-tsa.ts';

let svc: TestService;
let key: string;
let tsa: Awaited<ReturnType<typeof startLocalTsa>>;

beforeAll(async () => {
  tsa = await startLocalTsa();
  svc = await startTestService({ worker: false, env: { ...(await signerEnv()), C2PA_TSA_URL: tsa.url } });
  key = (await svc.createKey('enterprise')).key;
});
afterAll(async () => {
  await svc?.stop();
  await tsa?.close();
});

describe('C2PA_TSA_URL', () => {
  it('time-stamps each signature (RFC 3161), and c2pa-rs reads the time from the token', async () => {
    const asset = fixture('asset.jpg');
    const uid = await attest(svc, key, asset, 'image/jpeg');
    const before = tsa.requests();
    const res = await contentCredentials(svc, { key, uid, bytes: asset, contentType: 'image/jpeg' });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(tsa.requests()).toBe(before + 1);

    const read = await readBack('image/jpeg', res.bytes);
    expect(read.failures).toEqual(['signingCredential.untrusted']);
    // the token was read and its imprint matched; only its authority is on no trust list
    expect(read.informational).toContain('timeStamp.untrusted');
    expect(read.informational.filter((code) => code.startsWith('timeStamp.'))).toEqual(['timeStamp.untrusted']);
    expect(Math.abs(Date.parse(read.signature.time!) - Date.now())).toBeLessThan(60_000);
  });

  it('answers 503 with Retry-After when the time-stamping authority cannot be reached', async () => {
    const unreachable = await startTestService({
      worker: false,
      env: { ...(await signerEnv()), C2PA_TSA_URL: 'http://127.0.0.1:9/' },
    });
    try {
      const otherKey = (await unreachable.createKey('enterprise')).key;
      const asset = fixture('asset.png');
      const uid = await attest(unreachable, otherKey, asset, 'image/png');
      const res = await contentCredentials(unreachable, { key: otherKey, uid, bytes: asset, contentType: 'image/png' });
      expect(res).toMatchObject({ status: 503, json: { code: 'SERVICE_UNAVAILABLE' } });
      expect(res.json.message).toContain('time-stamp');
      expect(res.headers.get('retry-after')).toBe('30');
    } finally {
      await unreachable.stop();
    }
  });
});
