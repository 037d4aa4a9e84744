import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// the server's maker of throwaway CA chains, as examples/test uses it: the test service counts as a deployment (it
// has a DATABASE_URL), so it signs with a chain it is given, never with its development CA
import { makeSigningChain } from '../../../server/src/credentials/c2pa/dev-ca.ts';
import { randomPng, withPixelChanged } from './png.ts';
import { createAttestation, launchBrowser, OUTPUT_DIR, randomIp, startStack, type Stack } from './support.ts';

const IPTC = 'http://cv.iptc.org/newscodes/digitalsourcetype/';
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const sha256 = (bytes: Uint8Array) => `0x${createHash('sha256').update(bytes).digest('hex')}`;

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let uid: string;
let original: Buffer;
let signed: Buffer;

/** The asset with a C2PA manifest embedded by the API, signed under a test CA no trust list holds (no TSA). */
async function contentCredentials(key: string, forUid: string, bytes: Buffer): Promise<Buffer> {
  const res = await fetch(`${stack.svc.url}/v1/attestations/${forUid}/content-credentials`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png', 'x-forwarded-for': randomIp() },
    body: bytes,
  });
  if (res.status !== 200) throw new Error(`content-credentials: ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

beforeAll(async () => {
  const { keyPem, chainPem } = await makeSigningChain({ caName: 'Verification app test CA' });
  const signer = { C2PA_SIGNING_CERT: chainPem, C2PA_SIGNING_KEY: keyPem };
  [stack, browser] = await Promise.all([startStack({}, signer), launchBrowser()]);
  context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': randomIp() } });
  original = randomPng();
  const made = await createAttestation(stack.svc, {
    type: 'ai',
    contentHash: sha256(original),
    contentType: 'image/png',
    mode: 'offchain',
  });
  uid = made.created.uid;
  signed = await contentCredentials(made.key, uid, original);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** Every request of the context (the page's and its worker's). */
function recordRequests(): Request[] {
  const seen: Request[] = [];
  context.on('request', (r) => seen.push(r));
  return seen;
}

const block = (page: Page) => page.locator('[data-c2pa-result]');
const field = (page: Page, name: string) => page.locator(`[data-c2pa-result] [data-c2pa-field="${name}"]`);
const hashResult = (page: Page) => page.locator('[data-check-result]').getAttribute('data-result');

async function choose(page: Page, name: string, bytes: Buffer): Promise<void> {
  await page.setInputFiles('#check-file', { name, mimeType: 'image/png', buffer: bytes });
}

async function drop(page: Page, name: string, bytes: Buffer): Promise<void> {
  const transfer = await page.evaluateHandle(
    ({ name, bytes }) => {
      const dom = globalThis as any; // typed without the DOM library
      const data = new dom.DataTransfer();
      data.items.add(new dom.File([new Uint8Array(bytes)], name, { type: 'image/png' }));
      return data;
    },
    { name, bytes: [...bytes] },
  );
  await page.dispatchEvent('[data-drop-zone]', 'drop', { dataTransfer: transfer });
}

async function seriousViolations(page: Page): Promise<string[]> {
  // injected through the devtools protocol: the page's CSP rightly refuses an inline <script>
  await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as { violations: { id: string; impact: string }[] };
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
}

describe('Content Credentials of a file, read in the browser', () => {
  it('shows a dropped signed file valid, not on a trust list, with no trusted time, its source type and attestation', async () => {
    const requests = recordRequests();
    const page = await context.newPage();
    await page.goto(`${stack.verify.url}/${uid}`);
    await drop(page, 'signed.png', signed);
    await expect.poll(() => block(page).getAttribute('data-c2pa'), { timeout: 20_000 }).toBe('present');
    await page.screenshot({ path: join(OUTPUT_DIR, 'c2pa-signed.png'), fullPage: true });

    expect(await field(page, 'valid').getAttribute('data-state')).toBe('valid');
    expect(await field(page, 'signer').getAttribute('data-state')).toBe('untrusted');
    expect(await field(page, 'signer').textContent()).toContain('Not on a trust list');
    expect(await field(page, 'time').getAttribute('data-state')).toBe('none');
    expect(await field(page, 'time').textContent()).toContain('No trusted time-stamp');
    const sourceType = await field(page, 'source-type').textContent();
    expect(sourceType).toContain('Trained algorithmic media (generative AI)');
    expect(sourceType).toContain(`${IPTC}trainedAlgorithmicMedia`);
    expect(await field(page, 'generator').textContent()).toContain('Attestation Service');
    expect(await field(page, 'attestation').locator(`a[href="/${uid}"]`).textContent()).toBe(uid);
    expect(await field(page, 'attestation').textContent()).toContain('(this attestation)');
    // the manifest is in the bytes now: they are not the attested ones, and the page says why
    expect(await hashResult(page)).toBe('no-match');
    expect(await page.locator('[data-c2pa-note="embedded"]').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // hashing and reading stay on the device: only this app's pages and static files were asked for
    const foreign = requests.filter((r) => !r.url().startsWith(`${stack.verify.url}/`) || r.method() !== 'GET');
    expect(foreign.map((r) => `${r.method()} ${r.url()}`)).toEqual([]);
    expect(requests.some((r) => r.url().endsWith('/assets/c2pa/c2pa_bg.wasm'))).toBe(true);
    expect(requests.filter((r) => r.postDataBuffer() !== null)).toEqual([]);
    await page.close();
  }, 60_000);

  it('says a file carries no manifest, and still checks its hash', async () => {
    const page = await context.newPage();
    await page.goto(`${stack.verify.url}/${uid}`);
    await choose(page, 'original.png', original);
    await expect.poll(() => block(page).getAttribute('data-c2pa'), { timeout: 20_000 }).toBe('absent');
    expect(await hashResult(page)).toBe('match');
    expect(await field(page, 'manifest').textContent()).toContain('carries no C2PA manifest');
    expect(await field(page, 'valid').count()).toBe(0);
    await page.close();
  }, 60_000);

  it('says a manifest is not valid when the bytes it binds were changed', async () => {
    const page = await context.newPage();
    await page.goto(`${stack.verify.url}/${uid}`);
    await choose(page, 'changed.png', withPixelChanged(signed));
    await expect.poll(() => block(page).getAttribute('data-c2pa'), { timeout: 20_000 }).toBe('present');
    expect(await field(page, 'valid').getAttribute('data-state')).toBe('invalid');
    expect(await field(page, 'valid').textContent()).toContain('assertion.dataHash.mismatch');
    // trust and time are their own questions, answered the same for a broken binding
    expect(await field(page, 'signer').getAttribute('data-state')).toBe('untrusted');
    expect(await field(page, 'time').getAttribute('data-state')).toBe('none');
    expect(await hashResult(page)).toBe('no-match');
    await page.screenshot({ path: join(OUTPUT_DIR, 'c2pa-changed.png'), fullPage: true });
    await page.close();
  }, 60_000);

  it('on /check, looks the hash up and shows the manifest beside the results, linking to its attestation', async () => {
    const page = await context.newPage();
    await page.goto(`${stack.verify.url}/check`);
    await Promise.all([page.waitForURL(/\/check\?hash=/, { timeout: 30_000 }), choose(page, 'signed.png', signed)]);
    expect(new URL(page.url()).searchParams.get('hash')).toBe(sha256(signed));
    // nobody attested the signed bytes themselves; the manifest names the attestation of the original
    expect(await page.locator('[data-search-results]').getAttribute('data-search-results')).toBe('0');
    const stored = page.locator('[data-c2pa-stored]');
    await expect.poll(() => stored.getAttribute('data-c2pa')).toBe('present');
    expect(await stored.locator('[data-c2pa-field="valid"]').getAttribute('data-state')).toBe('valid');
    await page.screenshot({ path: join(OUTPUT_DIR, 'c2pa-check.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${stack.verify.url}/${uid}`), stored.locator(`a[href="/${uid}"]`).click()]);
    expect(await page.locator('[data-verdict]').getAttribute('data-verdict')).toBe('verified');
    await page.close();
  }, 60_000);
});

describe('what the C2PA reading may do', () => {
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.verify.url}${path}`, { headers: { 'x-forwarded-for': randomIp(), ...headers } });

  it('keeps the page at connect-src none; only the worker may fetch, from this app, and compile WebAssembly', async () => {
    const page = (await get(`/${uid}`)).headers.get('content-security-policy')!;
    expect(page).toContain("connect-src 'none'");
    expect(page).toContain("worker-src 'self'");
    expect(page).not.toContain('wasm-unsafe-eval');
    const worker = await get('/assets/c2pa-worker.js');
    expect(worker.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'",
    );
  });

  it('serves c2pa-rs as application/wasm, gzipped for clients that take it, with an ETag', async () => {
    const plain = await get('/assets/c2pa/c2pa_bg.wasm', { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-type')).toBe('application/wasm');
    expect(plain.headers.get('content-encoding')).toBeNull();
    const bytes = Buffer.from(await plain.arrayBuffer());
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d]));
    const gzipped = await get('/assets/c2pa/c2pa_bg.wasm', { 'accept-encoding': 'gzip, br' });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gzipped.headers.get('vary')).toBe('Accept-Encoding');
    // fetch decodes the body: the same module
    expect(Buffer.from(await gzipped.arrayBuffer()).equals(bytes)).toBe(true);
    const etag = gzipped.headers.get('etag')!;
    expect(etag).not.toBe(plain.headers.get('etag'));
    const again = await get('/assets/c2pa/c2pa_bg.wasm', { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(again.status).toBe(304);
  });
});
