import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { loadConfig } from '@attestation-service/server';
import {
  createTestDatabase,
  freePort,
  fundedKey,
  insertAccount,
  insertMember,
  randomIp,
  type Db,
  TEST_SERVICE_SECRET,
} from '@attestation-service/server/testing';
import { startService, type RunningStack } from '../../src/start.ts';

// the test files' one import: the stack and its people here, the browser's side and the other servers beside
export { call, randomIp } from '@attestation-service/server/testing';
export { launchBrowser } from '../verify/support.ts';
export { axeViolations, newVisitor, openSection, settled, signIn, UI_WAIT } from './browser.ts';
export { startReceiver, startSite, type Received } from './servers.ts';

/** Screenshots of the dashboard's pages (gitignored). */
export const SHOTS_DIR = fileURLToPath(new URL('../../test-output/dashboard/', import.meta.url));

export type Role = 'owner' | 'admin' | 'developer' | 'viewer';

export interface DashboardStack {
  /** The public URL, http://localhost:PORT: cookies, the trusted origin and the passkeys' relying party follow it. */
  base: string;
  service: RunningStack;
  /** Its database, typed (the server's test support): for the rows a test seeds or reads. */
  db: Db;
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
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    ...opts.env,
  });
  const service = await startService(config, { parts: { api: true, worker: opts.worker ?? false } });
  const db = service.infrastructure.db;
  const setupUrl = service.setupLink?.url;
  if (!setupUrl) {
    await service.stop();
    throw new Error('a fresh service gave no owner setup link');
  }
  await mkdir(SHOTS_DIR, { recursive: true });
  return { base, service, db, setupUrl, stop: () => service.stop() };
}

/** An invitation row as the setup link or an owner's invitation makes it; returns its token. */
export async function seedInvitation(
  db: Db,
  invitation: { kind?: 'setup' | 'member'; accountId: string | null; email?: string | null; role: Role },
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db
    .insertInto('invitations')
    .values({
      id: randomUUID(),
      kind: invitation.kind ?? 'member',
      tokenHash: createHash('sha256').update(token).digest(),
      tokenSealed: 'test',
      accountId: invitation.accountId,
      email: invitation.email ?? null,
      role: invitation.role,
      expiresAt: new Date(Date.now() + 24 * 60 * 60_000),
    })
    .execute();
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
  const accountName = `Newsroom ${person.email.split('@')[0]!.replace(/^[a-z]+-/, '')}`;
  const account = accountId ?? (await insertAccount(stack.db, { name: accountName }));
  const token = await seedInvitation(stack.db, { accountId: account, email: person.email, role });
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
  await insertMember(stack.db, { accountId: account, userId: body.user.id, role });
  const row = await stack.db.selectFrom('accounts').select('name').where('id', '=', account).executeTakeFirstOrThrow();
  return { ...person, accountId: account, accountName: row.name, role };
}
