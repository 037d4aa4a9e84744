import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttestation, launchBrowser, OUTPUT_DIR, randomIp, startStack, type Stack } from './support.ts';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
const content = `the attested poem ${Math.random()}`;
const sha256 = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;
let uid: string;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': randomIp() } });
  uid = (await createAttestation(stack.svc, { type: 'human', content, mode: 'offchain' })).created.uid;
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** Every request the page makes, to prove the content never leaves the browser. */
function recordRequests(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (r) => seen.push(r));
  return seen;
}

function carried(requests: Request[], secret: string): string[] {
  const needle = Buffer.from(secret);
  return requests
    .filter(
      (r) =>
        r.url().includes(secret) ||
        r.url().includes(encodeURIComponent(secret)) ||
        (r.postDataBuffer()?.includes(needle) ?? false) ||
        Object.values(r.headers()).some((v) => v.includes(secret)),
    )
    .map((r) => r.url());
}

const result = (page: Page) => page.locator('[data-check-result]');

describe('check your content', () => {
  it('says "matches" for a file whose SHA-256 is the attested hash and "does not match" for another; no request carries the bytes', async () => {
    const page = await context.newPage();
    const requests = recordRequests(page);
    await page.goto(`${stack.verify.url}/${uid}`);
    await page.setInputFiles('#check-file', { name: 'poem.txt', mimeType: 'text/plain', buffer: Buffer.from(content) });
    await expect.poll(() => result(page).getAttribute('data-result')).toBe('match');
    expect(await result(page).textContent()).toMatch(/^Matches this attestation/);
    await page.screenshot({ path: join(OUTPUT_DIR, 'content-matches.png'), fullPage: true });

    const other = `a different poem ${Math.random()}`;
    await page.setInputFiles('#check-file', { name: 'other.txt', mimeType: 'text/plain', buffer: Buffer.from(other) });
    await expect.poll(() => result(page).getAttribute('data-result')).toBe('no-match');
    expect(await result(page).textContent()).toContain(
      `Does not match this attestation: the file other.txt's SHA-256 is ${sha256(other)}`,
    );
    await page.screenshot({ path: join(OUTPUT_DIR, 'content-does-not-match.png'), fullPage: true });

    expect(requests.length).toBeGreaterThan(0);
    expect(carried(requests, content)).toEqual([]);
    expect(carried(requests, other)).toEqual([]);
    await page.close();
  });

  it('checks a dropped file and pasted text the same way', async () => {
    const page = await context.newPage();
    const requests = recordRequests(page);
    await page.goto(`${stack.verify.url}/${uid}`);
    const dropped = await page.evaluateHandle((text) => {
      const dom = globalThis as any; // typed without the DOM library
      const transfer = new dom.DataTransfer();
      transfer.items.add(new dom.File([text], 'dropped.txt', { type: 'text/plain' }));
      return transfer;
    }, content);
    await page.dispatchEvent('[data-drop-zone]', 'drop', { dataTransfer: dropped });
    await expect.poll(() => result(page).getAttribute('data-result')).toBe('match');

    await page.fill('#check-text', `${content} (edited)`);
    await page.click('.check-form button[type=submit]');
    await expect.poll(() => result(page).getAttribute('data-result')).toBe('no-match');
    await page.fill('#check-text', content);
    await page.click('.check-form button[type=submit]');
    await expect.poll(() => result(page).getAttribute('data-result')).toBe('match');
    expect(carried(requests, content)).toEqual([]);
    expect(page.url()).toBe(`${stack.verify.url}/${uid}`);
    await page.close();
  });
});

describe('/check', () => {
  it('looks pasted text up by its hash alone and lists its attestations, linking to their pages', async () => {
    const page = await context.newPage();
    const requests = recordRequests(page);
    await page.goto(`${stack.verify.url}/check`);
    await page.fill('#check-text', content);
    await Promise.all([page.waitForURL(/\/check\?hash=/), page.click('.check-form button[type=submit]')]);
    expect(new URL(page.url()).searchParams.get('hash')).toBe(sha256(content));
    expect(await page.locator('[data-search-results]').getAttribute('data-search-results')).toBe('1');
    await page.screenshot({ path: join(OUTPUT_DIR, 'check-results.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${stack.verify.url}/${uid}`), page.click(`a[href="/${uid}"]`)]);
    expect(await page.locator('[data-verdict]').getAttribute('data-verdict')).toBe('verified');
    expect(carried(requests, content)).toEqual([]);
    await page.close();
  });

  it('works without JavaScript from a typed hash, and says so when the hash is malformed', async () => {
    const noJs = await browser.newContext({
      javaScriptEnabled: false,
      extraHTTPHeaders: { 'x-forwarded-for': randomIp() },
    });
    const page = await noJs.newPage();
    await page.goto(`${stack.verify.url}/check`);
    await page.fill('#hash', sha256(content).slice(2).toUpperCase());
    await Promise.all([page.waitForURL(/hash=/), page.click('.hash-form button')]);
    expect(await page.locator('[data-search-results]').getAttribute('data-search-results')).toBe('1');
    const bad = await page.goto(`${stack.verify.url}/check?hash=not-a-hash`);
    expect(bad?.status()).toBe(400);
    expect(await page.locator('#hash').getAttribute('aria-invalid')).toBe('true');
    const none = await page.goto(`${stack.verify.url}/check?hash=${'0'.repeat(64)}`);
    expect(none?.status()).toBe(200);
    expect(await page.locator('[data-search-results]').getAttribute('data-search-results')).toBe('0');
    await noJs.close();
  });
});
