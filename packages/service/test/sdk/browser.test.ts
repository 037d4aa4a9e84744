// The SDK in a real browser: its self-contained browser build (resolved through the package's exports, as a CDN or an
// import map would serve it) loaded by a page on another origin than the API's, reading a record across origins
// and checking the off-chain package with no server in the loop.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import type { Browser } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '@attestation-service/server/testing';
import { launchBrowser } from '../verify/support.ts';

const require = createRequire(import.meta.url);
const BROWSER_BUILD = require.resolve('@attestation-service/client/browser');
const MAIN_BUILD = join(dirname(BROWSER_BUILD), 'index.js');
/** An import of a Node built-in, in any of the forms a build can carry one. */
const NODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']node:/;

/** A page that imports the SDK as an ES module, as an app's own script would. */
const PAGE = `<!doctype html><title>SDK in a browser</title>
<script type="module">import * as sdk from '/sdk.js'; globalThis.sdk = sdk;</script>`;

type Sdk = typeof import('@attestation-service/client');

let svc: TestService;
let browser: Browser;
let pages: Server;
let pagesUrl: string;

/** The page's origin (localhost) differs from the API's (127.0.0.1): every SDK call is a cross-origin one. */
function servePages(): Promise<Server> {
  const sdk = readFileSync(BROWSER_BUILD);
  const server = createServer((req, res) => {
    if (req.url === '/sdk.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(sdk);
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  [svc, browser, pages] = await Promise.all([startTestService({ worker: false }), launchBrowser(), servePages()]);
  pagesUrl = `http://localhost:${(pages.address() as AddressInfo).port}/`;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pages?.close(resolve));
  await svc?.stop();
});

describe('the SDK in Chromium', () => {
  it('ships builds with no import of a Node built-in', () => {
    expect(readFileSync(BROWSER_BUILD, 'utf8')).not.toMatch(NODE_IMPORT);
    expect(readFileSync(MAIN_BUILD, 'utf8')).not.toMatch(NODE_IMPORT);
    // the pattern does catch one
    expect(`import{createHash as a}from"node:crypto";`).toMatch(NODE_IMPORT);
  });

  it('reads an off-chain attestation across origins and verifies its package in the page', async () => {
    const { key } = await svc.createKey('pro');
    const content = `written in a browser test ${Math.random()}`;
    const created = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: { type: 'human', content, contentType: 'text/plain', mode: 'offchain' },
    });
    expect(created.status).toBe(201);
    const attester = privateKeyToAccount(svc.config.chain.relayerPrivateKey).address;

    const page = await (await browser.newContext()).newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(pagesUrl);
    await page.waitForFunction(() => 'sdk' in globalThis);
    const seen = await page.evaluate(
      async ({ api, uid, attester, content }) => {
        const sdk = (globalThis as unknown as { sdk: Sdk }).sdk;
        const record = await sdk.createClient({ baseUrl: api }).attestations.get(uid);
        const verdict = await sdk.verifyOffchain(record.offchain, { attester, uid: record.uid });
        const forged = structuredClone(record.offchain!);
        forged.sig.message.data = `0x${'00'.repeat(64)}`;
        const refused = await sdk.verifyOffchain(forged, { attester });
        return {
          record: { uid: record.uid, mode: record.mode, contentHash: record.contentHash },
          verdict: { ...verdict, time: verdict.valid ? verdict.time.toISOString() : undefined },
          refused,
          contentHash: sdk.contentHashOf({ content }),
          hmac: sdk.signWebhookBody('{}', 'ab'.repeat(32)),
        };
      },
      { api: svc.url, uid: created.body.uid as string, attester, content },
    );

    expect(failures).toEqual([]);
    expect(seen.record).toEqual({ uid: created.body.uid, mode: 'offchain', contentHash: seen.contentHash });
    expect(seen.verdict).toMatchObject({
      valid: true,
      attester,
      uid: created.body.uid,
      chainId: svc.chain.chainId,
      claim: { contentHash: seen.contentHash, type: 'human' },
    });
    expect(Math.abs(Date.parse(seen.verdict.time!) - Date.now())).toBeLessThan(120_000);
    expect(seen.refused).toMatchObject({ valid: false, reason: 'uid_mismatch' });
    // the same HMAC as Node's crypto computes for X-Service-Signature (the hex text of the secret is the key)
    const { createHmac } = await import('node:crypto');
    expect(seen.hmac).toBe(`sha256=${createHmac('sha256', 'ab'.repeat(32)).update('{}').digest('hex')}`);
  });
});
