import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMember,
  launchBrowser,
  newVisitor,
  openSection,
  settled,
  signIn,
  startDashboardStack,
  UI_WAIT,
  startSite,
  type DashboardStack,
  type Member,
} from './support.ts';

let stack: DashboardStack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startDashboardStack(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const isSessionCookie = (name: string) => name.endsWith('session_token');

const keyCount = async (member: Member) =>
  (await stack.db.selectFrom('apiKeys').select('id').where('accountId', '=', member.accountId).execute()).length;

/** Who the page's session cookie signs in, asked from the page itself (null when signed out). */
const signedInEmail = (page: Page) =>
  page.evaluate(async () => {
    const res = await fetch('/trpc/dashboard.session.me');
    return res.ok
      ? ((await res.json()) as { result: { data: { user: { email: string } } } }).result.data.user.email
      : null;
  });

describe('passkeys', () => {
  it('registers a passkey on the Account page and signs in with it, typing no password', async () => {
    const member = await createMember(stack, 'owner');
    const { context, page } = await newVisitor(browser, stack);
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await signIn(page, member);
    await openSection(page, 'My account');
    await page.getByLabel('Name for a new passkey').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect.poll(() => page.locator('main').textContent(), UI_WAIT).toContain('Passkey added');
    await expect.poll(() => page.locator('main input[value="Test laptop"]').count(), UI_WAIT).toBe(1);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ rpId: 'localhost', isResidentCredential: true });

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard/sign-in');
    expect((await context.cookies(stack.base)).filter((c) => isSessionCookie(c.name))).toEqual([]);
    expect(await signedInEmail(page)).toBeNull();

    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL((url) => url.pathname === '/dashboard/');
    await settled(page);
    expect(await signedInEmail(page)).toBe(member.email);
    expect(await page.locator('header').textContent()).toContain(member.accountName);
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(after.credentials[0]!.signCount).toBeGreaterThan(credentials[0]!.signCount);
    await context.close();
  });
});

describe("the session, from the browser's side", () => {
  it('is held in an HttpOnly, SameSite=Lax cookie that page scripts cannot read', async () => {
    const member = await createMember(stack, 'developer');
    const { context, page } = await newVisitor(browser, stack);
    await signIn(page, member);
    const cookies = await context.cookies(stack.base);
    const session = cookies.find((c) => isSessionCookie(c.name));
    expect(session, JSON.stringify(cookies)).toBeDefined();
    // every cookie the dashboard sets, the session's included
    for (const cookie of cookies) expect(cookie, cookie.name).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe(
      '',
    );
    await context.close();
  });

  it('refuses a cross-site POST to /trpc, with the cookie or without it, and changes nothing', async () => {
    const member = await createMember(stack, 'developer');
    const { context, page } = await newVisitor(browser, stack);
    await signIn(page, member);
    const target = `${stack.base}/trpc/dashboard.keys.create`;
    // a form cannot send JSON: text/plain with the JSON split across the field's name and value is the classic try
    const site = await startSite(`<!doctype html><html lang="en"><title>Win a prize</title>
<form id="f" method="POST" action="${target}" enctype="text/plain">
<input type="hidden" name='{"name":"csrf-form","tier":"free","pad":"' value='"}'></form>
<script>
if (location.search === '?form') document.getElementById('f').submit();
if (location.search === '?fetch')
  fetch('${target}', { method: 'POST', mode: 'no-cors', credentials: 'include', body: new Blob(['{"name":"csrf-fetch","tier":"free"}']) });
</script></html>`);
    try {
      // localhost:<other port> is the same site (SameSite lets the cookie go) but another origin; 127.0.0.1 is another site
      for (const host of ['localhost', '127.0.0.1']) {
        for (const how of ['form', 'fetch']) {
          const attack = await context.newPage();
          const answered = attack.waitForResponse((r) => r.url() === target);
          await attack.goto(`http://${host}:${site.port}/?${how}`);
          const response = await answered;
          const label = `${how} from ${host}`;
          expect(response.request().method(), label).toBe('POST');
          if (how === 'form') {
            // (a no-cors fetch's sent headers do not reliably reach Playwright; a form navigation's do)
            const sent = await response.request().allHeaders();
            expect(sent.origin, label).toBe(`http://${host}:${site.port}`);
            expect(/session_token=/.test(sent.cookie ?? ''), label).toBe(host === 'localhost');
          }
          expect(response.status(), label).toBeGreaterThanOrEqual(400);
          expect(response.status(), label).toBeLessThan(500);
          await attack.close();
        }
      }
      expect(await keyCount(member)).toBe(0);
      // the control: the same session makes the same change from the dashboard's own origin
      const status = await page.evaluate(async (url) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'same-origin', tier: 'free' }),
        });
        return res.status;
      }, target);
      expect(status).toBe(200);
      expect(await keyCount(member)).toBe(1);
    } finally {
      await site.close();
      await context.close();
    }
  });

  it('a session signed out from another browser is signed out at its next request', async () => {
    const member = await createMember(stack, 'owner');
    const [first, second] = await Promise.all([newVisitor(browser, stack), newVisitor(browser, stack)]);
    await signIn(first.page, member);
    await signIn(second.page, member);
    await openSection(first.page, 'My account');
    const sessions = first.page.getByRole('region', { name: 'Your signed-in sessions' });
    const other = sessions.getByRole('row').filter({ hasText: second.ip });
    await other.getByRole('button', { name: 'Sign out this session' }).click();
    await expect.poll(() => first.page.locator('main').textContent(), UI_WAIT).toContain('Session signed out.');
    await second.page.goto('/dashboard/keys');
    await second.page.waitForURL((url) => url.pathname === '/dashboard/sign-in');
    expect(second.page.url()).toContain('next=keys');
    expect(await signedInEmail(first.page)).toBe(member.email);
    await Promise.all([first.context.close(), second.context.close()]);
  });
});
