import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';
import { attest, contentCredentials, fixture, readBack, signerEnv } from './c2pa-reader.ts';

/** The MP4 fixture grown to `size` bytes by a `free` box (ISO BMFF's padding): a valid MP4 of any size. */
function mp4Of(size: number): Buffer {
  const small = fixture('asset.mp4');
  const free = Buffer.alloc(size - small.length);
  free.writeUInt32BE(free.length, 0);
  free.write('free', 4, 'latin1');
  return Buffer.concat([small, free]);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** Latencies (ms) of sequential calls until `done` says stop. */
async function sample(fn: () => Promise<unknown>, done: () => boolean): Promise<number[]> {
  const ms: number[] = [];
  while (!done()) {
    const started = performance.now();
    await fn();
    ms.push(performance.now() - started);
  }
  return ms.sort((a, b) => a - b);
}

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ worker: false, env: await signerEnv() });
  key = (await svc.createKey('enterprise')).key;
});
afterAll(() => svc?.stop());

describe('a 50 MB asset', () => {
  it('is signed off the event loop: /healthz and reads of other clients stay fast meanwhile', async () => {
    const asset = mp4Of(50_000_000);
    const uid = await attest(svc, key, asset, 'video/mp4');
    const other = await attest(svc, (await svc.createKey('pro')).key, fixture('asset.png'), 'image/png');
    // warm: the signing thread's start and c2pa-rs's compilation are not what is measured
    await contentCredentials(svc, { key, uid, bytes: mp4Of(1_000_000), contentType: 'video/mp4' });

    let signing = true;
    const started = performance.now();
    const signed = contentCredentials(svc, { key, uid, bytes: asset, contentType: 'video/mp4' }).finally(() => {
      signing = false;
    });
    const [health, reads, res] = await Promise.all([
      sample(
        () => fetch(`${svc.url}/healthz`).then((r) => r.arrayBuffer()),
        () => !signing,
      ),
      sample(
        () => call(svc.url, 'GET', `/v1/attestations/${other}`),
        () => !signing,
      ),
      signed,
    ]);
    const seconds = (performance.now() - started) / 1000;
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.bytes.byteLength).toBeGreaterThan(asset.length);

    const line = (name: string, ms: number[]) =>
      `${name}: n=${ms.length} p50=${percentile(ms, 0.5).toFixed(1)} ms p99=${percentile(ms, 0.99).toFixed(1)} ms max=${ms.at(-1)!.toFixed(1)} ms`;
    console.log(
      `50 MB MP4 signed in ${seconds.toFixed(2)} s; meanwhile\n  ${line('/healthz', health)}\n  ${line('GET /v1/attestations/{uid}', reads)}`,
    );
    // generous (a shared CI machine): a blocked event loop would hold them for the whole signing, seconds
    expect(health.length).toBeGreaterThan(10);
    expect(percentile(health, 0.99)).toBeLessThan(1000);
    expect(percentile(reads, 0.99)).toBeLessThan(2000);

    const read = await readBack('video/mp4', res.bytes);
    expect(read.failures).toEqual(['signingCredential.untrusted']);
  }, 120_000);
});
