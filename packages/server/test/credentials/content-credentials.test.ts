import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTESTATION_ASSERTION } from '../../src/credentials/c2pa/manifest.ts';
import { call, startTestService, type TestService } from '../support/service.ts';
import { attest, contentCredentials, fixture, FIXTURES, readBack, sha256, signerEnv } from './c2pa-reader.ts';

const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';

/** A request body sent chunked (no Content-Length): these pieces. */
function streamOf(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
}
/** The one validation failure a manifest under a certificate no trust list holds may have. */
const UNTRUSTED = 'signingCredential.untrusted';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({
    worker: false,
    env: { ...(await signerEnv()), C2PA_MAX_BYTES: '65536', C2PA_CONCURRENCY: '1' },
  });
  key = (await svc.createKey('enterprise')).key;
});
afterAll(() => svc?.stop());

describe('POST /v1/attestations/{uid}/content-credentials', () => {
  it.each(FIXTURES)('embeds a signed manifest in %s that c2pa-rs reads back valid', async (file, mediaType) => {
    const asset = fixture(file);
    const uid = await attest(svc, key, asset, mediaType, 'ai');
    const res = await contentCredentials(svc, { key, uid, bytes: asset, contentType: mediaType });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.headers.get('content-type')).toBe(mediaType);

    const read = await readBack(mediaType, res.bytes);
    expect(read.failures).toEqual([UNTRUSTED]);
    expect(read.assertions['c2pa.actions.v2'].actions).toEqual([
      { action: 'c2pa.created', digitalSourceType: `${IPTC}trainedAlgorithmicMedia` },
    ]);
    expect(read.assertions[ATTESTATION_ASSERTION]).toMatchObject({
      uid,
      chainId: svc.chain.chainId,
      easContract: svc.chain.eas,
      mode: 'offchain',
      type: 'ai',
      digitalSourceType: `${IPTC}trainedAlgorithmicMedia`,
      contentHash: sha256(asset),
      verifyUrl: expect.stringMatching(new RegExp(`/${uid}$`)),
    });
    // the hard binding: over the bytes as written (the manifest's own box excluded), checked by c2pa-rs above
    expect(Object.keys(read.bindings).some((label) => /^c2pa\.hash\.(data|bmff)/.test(label))).toBe(true);
  });

  it("carries an AI claim's model and prompt hash, as c2pa-rs reads them back", async () => {
    const asset = fixture('asset.png');
    const ai = { model: 'stability/sdxl-1.0', promptHash: sha256(Buffer.from('a prompt')) };
    const made = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'ai', contentHash: sha256(asset), contentType: 'image/png', mode: 'offchain', ai },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const res = await contentCredentials(svc, { key, uid: made.body.uid, bytes: asset, contentType: 'image/png' });
    const read = await readBack('image/png', res.bytes);
    expect(read.failures).toEqual([UNTRUSTED]);
    expect(read.assertions[ATTESTATION_ASSERTION]).toMatchObject({ uid: made.body.uid, ai });
  });

  it('names a human-made attestation digitalCreation', async () => {
    const asset = fixture('asset.png');
    const uid = await attest(svc, key, asset, 'image/png', 'human');
    const res = await contentCredentials(svc, { key, uid, bytes: asset, contentType: 'image/png' });
    const read = await readBack('image/png', res.bytes);
    expect(read.assertions['c2pa.actions.v2'].actions[0].digitalSourceType).toBe(`${IPTC}digitalCreation`);
  });

  it.each([
    ['asset.jpg', 'image/jpeg'],
    ['asset.txt', 'text/plain; charset=utf-8'],
  ])('answers the sidecar store for %s with Accept: application/c2pa, bound to the whole asset', async (file, type) => {
    const asset = fixture(file);
    const uid = await attest(svc, key, asset, type.split(';')[0]!);
    const res = await contentCredentials(svc, {
      key,
      uid,
      bytes: asset,
      contentType: type,
      accept: 'application/c2pa',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/c2pa');

    // read without the asset, the binding cannot match: everything else must be valid
    const read = await readBack('application/c2pa', res.bytes);
    expect(read.failures.sort()).toEqual(['assertion.dataHash.mismatch', UNTRUSTED]);
    expect(read.assertions[ATTESTATION_ASSERTION].uid).toBe(uid);
    const binding = read.bindings['c2pa.hash.data'];
    expect(binding.hash).toBe(`b64'${Buffer.from(sha256(asset).slice(2), 'hex').toString('base64')}'`);
  });

  it('refuses bytes that are not the attested ones with 422 CONTENT_MISMATCH naming both hashes', async () => {
    const asset = fixture('asset.jpg');
    const uid = await attest(svc, key, asset, 'image/jpeg');
    const other = fixture('asset.png');
    const res = await contentCredentials(svc, { key, uid, bytes: other, contentType: 'image/jpeg' });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      code: 'CONTENT_MISMATCH',
      message: expect.stringContaining(uid),
      details: { expected: sha256(asset), received: sha256(other) },
    });
  });

  it('refuses an asset over C2PA_MAX_BYTES with 413 PAYLOAD_TOO_LARGE', async () => {
    const big = Buffer.alloc(70_000, 1);
    const uid = await attest(svc, key, big, 'image/jpeg');
    const res = await contentCredentials(svc, { key, uid, bytes: big, contentType: 'image/jpeg' });
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limitBytes: 65_536 } });
  });

  it('refuses a chunked body (no Content-Length) once it grows over C2PA_MAX_BYTES', async () => {
    const big = Buffer.alloc(70_000, 2);
    const uid = await attest(svc, key, big, 'image/jpeg');
    const res = await fetch(`${svc.url}/v1/attestations/${uid}/content-credentials`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'image/jpeg' },
      body: streamOf([big.subarray(0, 40_000), big.subarray(40_000)]),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers 503 with Retry-After, before reading the body, while every signing place is taken', async () => {
    const asset = fixture('asset.jpg');
    const uid = await attest(svc, key, asset, 'image/jpeg');
    const url = `${svc.url}/v1/attestations/${uid}/content-credentials`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'image/jpeg' };
    // C2PA_CONCURRENCY=1: two places, held here by two bodies that have not ended (each on a socket of its own)
    const hold = () =>
      [0, 1].map(() => {
        const req = request(url, { method: 'POST', headers, agent: false });
        let settled = false;
        const answer = new Promise<number>((resolve, reject) => {
          req.on('response', (res) => (res.resume(), (settled = true), resolve(res.statusCode!)));
          req.on('error', (error) => ((settled = true), reject(error)));
        });
        answer.catch(() => undefined); // awaited below; a holder that failed is seen through `settled`
        req.write(asset.subarray(0, 100));
        return { answer, settled: () => settled, end: () => req.end(asset.subarray(100)) };
      });
    // on a loaded machine a holder may reach its place after the first attempt below took one: it is then turned
    // away itself, and the places are not both held; so the holders settle in first, and are made again if not
    let held = hold();
    for (let tries = 0; tries < 5; tries++) {
      // on purpose: a holder that reached its place shows nothing, so a second passes for both to settle in
      await new Promise((r) => setTimeout(r, 1000));
      if (!held.some((h) => h.settled())) break;
      for (const { end } of held) end();
      await Promise.allSettled(held.map(({ answer }) => answer));
      held = hold();
    }
    const statuses: number[] = [];
    let turnedAway: Awaited<ReturnType<typeof contentCredentials>> | undefined;
    for (let attempt = 0; attempt < 100 && turnedAway?.status !== 503; attempt++) {
      turnedAway = await contentCredentials(svc, { key, uid, bytes: asset, contentType: 'image/jpeg' });
      statuses.push(turnedAway.status);
      if (turnedAway.status !== 503) await new Promise((r) => setTimeout(r, 100));
    }
    expect(turnedAway?.status, `answers while the places were held: ${statuses.join(',')}`).toBe(503);
    expect(turnedAway!.json.code).toBe('SERVICE_UNAVAILABLE');
    expect(turnedAway!.headers.get('retry-after')).toBe('2');
    for (const { end } of held) end();
    expect(await Promise.all(held.map(({ answer }) => answer))).toEqual([200, 200]);
    // the places are given back
    expect((await contentCredentials(svc, { key, uid, bytes: asset, contentType: 'image/jpeg' })).status).toBe(200);
  });

  it('refuses a media type c2pa-rs cannot embed in with 415, listing the ones it can', async () => {
    const asset = fixture('asset.txt');
    const uid = await attest(svc, key, asset, 'application/pdf');
    const pdf = await contentCredentials(svc, { key, uid, bytes: asset, contentType: 'application/pdf' });
    expect(pdf.status).toBe(415);
    expect(pdf.json.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(pdf.json.details.supported).toEqual(expect.arrayContaining(['image/jpeg', 'image/png', 'video/mp4']));
    const text = await contentCredentials(svc, { key, uid, bytes: asset, contentType: 'text/plain' });
    expect(text).toMatchObject({ status: 415, json: { message: expect.stringContaining('Accept: application/c2pa') } });
  });

  it('answers 415 naming the reason when the attested bytes are not the media type they are sent as', async () => {
    const notJpeg = Buffer.from(`not a jpeg ${Math.random()}`);
    const uid = await attest(svc, key, notJpeg, 'image/jpeg');
    const res = await contentCredentials(svc, { key, uid, bytes: notJpeg, contentType: 'image/jpeg' });
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', details: { reason: expect.any(String) } });
  });

  it("refuses another account's attestation with 403 FORBIDDEN", async () => {
    const asset = fixture('asset.jpg');
    const uid = await attest(svc, key, asset, 'image/jpeg');
    const stranger = (await svc.createKey('enterprise')).key;
    const res = await contentCredentials(svc, { key: stranger, uid, bytes: asset, contentType: 'image/jpeg' });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('FORBIDDEN');
  });

  it('answers 404 for an unknown uid, 400 for a malformed one, 401 without a key', async () => {
    const asset = fixture('asset.jpg');
    const unknown = `0x${'ab'.repeat(32)}`;
    const missing = await contentCredentials(svc, { key, uid: unknown, bytes: asset, contentType: 'image/jpeg' });
    expect(missing).toMatchObject({ status: 404, json: { code: 'NOT_FOUND' } });
    const malformed = await contentCredentials(svc, { key, uid: 'nope', bytes: asset, contentType: 'image/jpeg' });
    expect(malformed).toMatchObject({ status: 400, json: { code: 'VALIDATION_FAILED' } });
    const anonymous = await contentCredentials(svc, { uid: unknown, bytes: asset, contentType: 'image/jpeg' });
    expect(anonymous).toMatchObject({ status: 401, json: { code: 'MISSING_API_KEY' } });
  });

  it('answers 409 ALREADY_REVOKED for a revoked attestation, and 405 with Allow for a GET', async () => {
    const asset = fixture('asset.gif');
    const uid = await attest(svc, key, asset, 'image/gif');
    // as a mined revocation leaves it (the relayer is not part of this test)
    await svc.db.updateTable('attestations').set({ revokedAt: new Date() }).where('uid', '=', uid).execute();
    const res = await contentCredentials(svc, { key, uid, bytes: asset, contentType: 'image/gif' });
    expect(res).toMatchObject({ status: 409, json: { code: 'ALREADY_REVOKED' } });
    const get = await call(svc.url, 'GET', `/v1/attestations/${uid}/content-credentials`, { key });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

describe('a real deployment without C2PA_SIGNING_CERT', () => {
  it('serves everything else and answers this route 503, naming what to set', async () => {
    const bare = await startTestService({ worker: false });
    try {
      const bareKey = (await bare.createKey('pro')).key;
      const uid = `0x${'ab'.repeat(32)}`;
      const res = await contentCredentials(bare, {
        key: bareKey,
        uid,
        bytes: fixture('asset.jpg'),
        contentType: 'image/jpeg',
      });
      expect(res).toMatchObject({
        status: 503,
        json: {
          code: 'SERVICE_UNAVAILABLE',
          message: expect.stringContaining('C2PA_SIGNING_CERT and C2PA_SIGNING_KEY'),
        },
      });
      expect((await call(bare.url, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await bare.stop();
    }
  });
});
