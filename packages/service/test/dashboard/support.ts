import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { inject } from 'vitest';
import { loadConfig } from '@attestation-service/server';
import { createTestDatabase, freePort, fundedKey, randomIp } from '@attestation-service/server/testing';
import { startService, type RunningStack } from '../../src/start.ts';

export { call, randomIp } from '@attestation-service/server/testing';
export { launchBrowser } from '../verify/support.ts';

/** Screenshots of the dashboard's pages (gitignored). */
export const SHOTS_DIR = fileURLToPath(new URL('../../test-output/dashboard/', import.meta.url));

type Sql = RunningStack['infrastructure']['sql'];
export type Role = 'owner' | 'admin' | 'developer' | 'viewer';

export interface DashboardStack {
  /** The public URL, http://localhost:PORT: cookies, the trusted origin and the passkeys' relying party follow it. */
  base: string;
  service: RunningStack;
  sql: Sql;
  /** The one-time owner setup link a fresh service prints (serve shows it at start). */
  setupUrl: string;
  stop(): Promise<void>;
}

/**
 * The launcher's stack (API with the dashboard's pages, and the worker when asked) on a fresh database and the run's
 * anvil, reached as http://localhost:PORT. TRUST_PROXY as in the verification app's tests: every browser context sends
 * its own X-Forwarded-For, so per-address sign-in limits never cross tests.
 */
export async function startDashboardStack(
  opts: { worker?: boolean; env?: Record<string, string> } = {},
): Promise<DashboardStack> {
  const chain = inject('chain');
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: base,
    LOG_LEVEL: process.env.DASH_LOG ?? 'silent',
    DATABASE_URL: await createTestDatabase(),
    TRUST_PROXY: 'true',
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
    RELAY_STUCK_AFTER: '2s',
    ...opts.env,
  });
  const service = await startService(config, { parts: { api: true, worker: opts.worker ?? false } });
  const sql = service.infrastructure.sql;
  const setupUrl = service.setupLink?.url;
  if (!setupUrl) {
    await service.stop();
    throw new Error('a fresh service gave no owner setup link');
  }
  await mkdir(SHOTS_DIR, { recursive: true });
  return { base, service, sql, setupUrl, stop: () => service.stop() };
}

/** An invitation row as the setup link or an owner's invitation makes it; returns its token. */
export async function seedInvitation(
  sql: Sql,
  invitation: { kind?: 'setup' | 'member'; accountId: string | null; email?: string | null; role: Role },
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await sql.query(
    `INSERT INTO invitations (id, kind, token_hash, token_sealed, account_id, email, role, expires_at)
     VALUES ($1, $2, $3, 'test', $4, $5, $6, now() + interval '1 day')`,
    [
      randomUUID(),
      invitation.kind ?? 'member',
      createHash('sha256').update(token).digest(),
      invitation.accountId,
      invitation.email ?? null,
      invitation.role,
    ],
  );
  return token;
}

let seq = 0;

/** A fresh person's name, email and password (each test its own people). */
export function newPerson(label: string): { name: string; email: string; password: string } {
  const n = `${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
  return { name: `${label} ${n}`, email: `${label.toLowerCase()}-${n}@example.com`, password: `pw-${n}-long-enough` };
}

export interface Member {
  name: string;
  email: string;
  password: string;
  accountId: string;
  accountName: string;
  role: Role;
}

/**
 * A new account (or `accountId`) with a member of that role, signed up through better-auth with an invitation token
 * and written as a member directly: the invitation flow through the pages has its own test.
 */
export async function createMember(stack: DashboardStack, role: Role, accountId?: string): Promise<Member> {
  const person = newPerson(role);
  const accountName = `account ${person.email.split('@')[0]}`;
  const account =
    accountId ??
    (
      await stack.sql.query<{ id: string }>(`INSERT INTO accounts (id, name) VALUES ($1, $2) RETURNING id`, [
        randomUUID(),
        accountName,
      ])
    )[0]!.id;
  const token = await seedInvitation(stack.sql, { accountId: account, email: person.email, role });
  const res = await fetch(`${stack.base}/dashboard/api/auth/sign-up/email`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      origin: stack.base,
      'x-forwarded-for': randomIp(),
      'x-invitation-token': token,
    },
    body: JSON.stringify(person),
  });
  const body = (await res.json()) as { user?: { id: string } };
  if (res.status !== 200 || !body.user) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(body)}`);
  await stack.sql.query(`INSERT INTO members (id, account_id, user_id, role) VALUES ($1, $2, $3, $4)`, [
    randomUUID(),
    account,
    body.user.id,
    role,
  ]);
  const [row] = await stack.sql.query<{ name: string }>(`SELECT name FROM accounts WHERE id = $1`, [account]);
  return { ...person, accountId: account, accountName: row!.name, role };
}

/** A browser context of its own (cookies, storage) and its own client address (`ip`); its first page. */
export async function newVisitor(
  browser: Browser,
  stack: DashboardStack,
  opts: { colorScheme?: 'light' | 'dark'; width?: number } = {},
): Promise<{ context: BrowserContext; page: Page; ip: string }> {
  const ip = randomIp();
  const context = await browser.newContext({
    baseURL: stack.base,
    extraHTTPHeaders: { 'x-forwarded-for': ip },
    colorScheme: opts.colorScheme ?? 'light',
    viewport: { width: opts.width ?? 1280, height: 800 },
  });
  context.setDefaultTimeout(10_000);
  return { context, page: await context.newPage(), ip };
}

/** Signs in through the sign-in page with email and password; resolves on the overview. */
export async function signIn(page: Page, person: { email: string; password: string }): Promise<void> {
  await page.goto('/dashboard/sign-in');
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/dashboard/');
  await settled(page);
}

/** Follows a link of the dashboard's navigation and waits for its page. */
export async function openSection(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
  await settled(page);
}

/** Waits until the page shows its heading and nothing is loading any more. */
export async function settled(page: Page): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page.waitForFunction(() => {
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document;
    return doc.querySelectorAll('[role="status"]').length === 0;
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is, one line each (`id (impact): targets`). */
export async function axeViolations(page: Page): Promise<string[]> {
  // injected through the devtools protocol: the page's CSP rightly refuses an inline <script>
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(): Promise<unknown> } }).axe.run(),
  )) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Another web site on loopback serving one HTML page at `/` (an attacker's page, say); reach it by any host name. */
export async function startSite(html: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A real webhook receiver on loopback: records every request and answers `answer(index)`. */
export async function startReceiver(
  answer: (index: number) => { status: number; body: string },
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const { status, body } = answer(received.length - 1);
      res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
