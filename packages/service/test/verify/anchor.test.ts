import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createPublicClient, http, parseAbi, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAttestation, launchBrowser, OUTPUT_DIR, randomIp, startStack, type Stack } from './support.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const EAS_ABI = parseAbi(['function getTimestamp(bytes32 data) view returns (uint64)']);

interface Anchor {
  root: Hex;
  proof: Hex[];
  txHash: Hex;
  blockNumber: number;
  timestamp: string;
}

let browser: Browser;
let context: BrowserContext;
let unanchored: Stack;
let anchoring: Stack;

beforeAll(async () => {
  // ANCHOR_INTERVAL=0 turns anchoring off: that stack's records stay "not anchored yet" however slow the run
  [browser, unanchored, anchoring] = await Promise.all([
    launchBrowser(),
    startStack({}, { ANCHOR_INTERVAL: '0' }),
    startStack({}, { ANCHOR_INTERVAL: '1s' }),
  ]);
  context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': randomIp() } });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([unanchored?.stop(), anchoring?.stop()]);
});

async function open(stack: Stack, uid: string, shot: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${stack.verify.url}/${uid}`);
  await page.screenshot({ path: join(OUTPUT_DIR, `${shot}.png`), fullPage: true });
  return page;
}

async function seriousViolations(page: Page): Promise<string[]> {
  // injected through the devtools protocol: the page's CSP rightly refuses an inline <script>
  await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as { violations: { id: string; impact: string }[] };
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
}

const badge = async (stack: Stack, uid: string) =>
  (await fetch(`${stack.verify.url}/api/attestation/${uid}`, { headers: { 'x-forwarded-for': randomIp() } })).json();

/** The record once the worker anchored it (the API's own answer, polled). */
async function anchoredRecord(stack: Stack, uid: string): Promise<{ anchor: Anchor }> {
  for (let i = 0; i < 300; i++) {
    const { body } = await call(stack.svc.url, 'GET', `/v1/attestations/${uid}`);
    if (body?.anchor) return body as { anchor: Anchor };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`attestation ${uid} was not anchored within 30 s`);
}

describe('the anchor on the verification page and in the badge', () => {
  it('says "Not anchored yet" (badge anchor null) for an off-chain attestation the service has not anchored', async () => {
    const { created } = await createAttestation(unanchored.svc, {
      type: 'human',
      content: `unanchored ${Math.random()}`,
      mode: 'offchain',
    });
    const page = await open(unanchored, created.uid, 'offchain-not-anchored');
    expect(await page.locator('[data-verdict]').getAttribute('data-verdict')).toBe('verified');
    expect(await page.locator('[data-anchor]').getAttribute('data-anchor')).toBe('none');
    expect(await page.locator('main').textContent()).toContain('Not anchored yet');
    expect(await page.locator('main').textContent()).not.toMatch(/existed by/i);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
    expect(await badge(unanchored, created.uid)).toMatchObject({ status: 'verified', anchor: null });
  });

  it('says "Existed by <block time>" once anchored, the time the chain holds for the root, and the badge carries it', async () => {
    const { created } = await createAttestation(anchoring.svc, {
      type: 'ai',
      content: `anchored ${Math.random()}`,
      mode: 'offchain',
    });
    const { anchor } = await anchoredRecord(anchoring, created.uid);
    const chain = createPublicClient({ transport: http(anchoring.svc.chain.rpcUrl) });
    const seconds = await chain.readContract({
      address: anchoring.svc.chain.eas as Hex,
      abi: EAS_ABI,
      functionName: 'getTimestamp',
      args: [anchor.root],
    });
    expect(seconds * 1000n).toBe(BigInt(Date.parse(anchor.timestamp)));
    const existedBy = new Date(Number(seconds) * 1000).toISOString();

    const page = await open(anchoring, created.uid, 'offchain-anchored');
    expect(await page.locator('[data-verdict]').getAttribute('data-verdict')).toBe('verified');
    expect(await page.locator('[data-anchor]').getAttribute('data-anchor')).toBe('verified');
    expect(await page.locator('[data-anchor] time').getAttribute('datetime')).toBe(existedBy);
    expect(await page.locator('[data-check="Anchor"]').getAttribute('class')).toBe('pass');
    const text = await page.locator('main').textContent();
    expect(text).toContain('Existed by');
    expect(text).toContain(anchor.txHash);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
    expect(await badge(anchoring, created.uid)).toMatchObject({
      status: 'verified',
      anchor: { verified: true, existedBy, txHash: anchor.txHash },
    });
  }, 60_000);

  it('says plainly that an anchor whose proof fails does not hold, and claims no time (a mismatch)', async () => {
    const { created } = await createAttestation(anchoring.svc, {
      type: 'human',
      content: `tampered anchor ${Math.random()}`,
      mode: 'offchain',
    });
    await anchoredRecord(anchoring, created.uid);
    // the database changed behind the chain's back: one more sibling hash makes any proof fail
    const { db } = anchoring.svc;
    const row = await db
      .selectFrom('attestations')
      .select('anchorProof')
      .where('uid', '=', created.uid)
      .executeTakeFirstOrThrow();
    const longer = Buffer.concat([row.anchorProof!, Buffer.alloc(32, 0xab)]);
    await db.updateTable('attestations').set({ anchorProof: longer }).where('uid', '=', created.uid).execute();
    const page = await open(anchoring, created.uid, 'offchain-anchor-fails');
    expect(await page.locator('[data-verdict]').getAttribute('data-verdict')).toBe('mismatch');
    expect(await page.locator('[data-anchor]').getAttribute('data-anchor')).toBe('failed');
    expect(await page.locator('[data-check="Anchor"]').getAttribute('class')).toBe('fail');
    const text = await page.locator('main').textContent();
    expect(text).toContain('The anchor does not hold');
    expect(text).not.toMatch(/existed by/i);
    await page.close();
    expect(await badge(anchoring, created.uid)).toMatchObject({
      verified: false,
      status: 'mismatch',
      anchor: { verified: false, reason: expect.stringContaining('does not lead from') },
    });
  }, 60_000);
});
