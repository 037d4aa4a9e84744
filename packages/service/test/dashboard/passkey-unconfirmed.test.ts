// A passkey registered through the Account page while the address is unconfirmed is marked, so that a password
// reset (proof of the mailbox) deletes it; one registered once confirmed is not (docs/decisions.md, "Secrets at rest").
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMember,
  launchBrowser,
  newVisitor,
  openSection,
  signIn,
  startDashboardStack,
  UI_WAIT,
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

/** Registers a passkey named `name` on the Account page, with a virtual authenticator. */
async function addPasskey(member: Member, name: string): Promise<void> {
  const { context, page } = await newVisitor(browser, stack);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
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
  await page.getByLabel('Name for a new passkey').fill(name);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await expect.poll(() => page.locator('main').textContent(), UI_WAIT).toContain('Passkey added');
  await context.close();
}

const marks = (email: string) =>
  stack.db
    .selectFrom('passkeys as p')
    .innerJoin('users as u', 'u.id', 'p.userId')
    .select(['p.name', 'p.registeredUnconfirmed'])
    .where('u.email', '=', email)
    .orderBy('p.name')
    .execute();

describe('passkeys registered before the address is confirmed', () => {
  it('are marked when registered unconfirmed, and not once confirmed', async () => {
    const member = await createMember(stack, 'owner');
    const confirmed = (emailVerified: boolean) =>
      stack.db.updateTable('users').set({ emailVerified }).where('email', '=', member.email).execute();
    await confirmed(false);
    await addPasskey(member, 'a-unconfirmed');
    await confirmed(true);
    await addPasskey(member, 'b-confirmed');
    expect(await marks(member.email)).toEqual([
      { name: 'a-unconfirmed', registeredUnconfirmed: true },
      { name: 'b-confirmed', registeredUnconfirmed: false },
    ]);
  });
});
