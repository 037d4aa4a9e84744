// The dashboard's figures: first-load JavaScript, the attestations and audit pages with 1,000,000 rows in
// the account (each page's time next to its bare keyset query on the same database), and sign-in latency next to
// the password hash it verifies.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { hashPassword, verifyPassword } from 'better-auth/crypto';
import { applyMigrations } from '../src/db/migrate.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { systemClock } from '../src/clock.ts';
import { createKeyService } from '../src/keys/service.ts';
import { newInvitationToken, tokenHash } from '../src/accounts/invitation-tokens.ts';
import { startChild } from './children.ts';

const DIST = join(import.meta.dirname, '../../dashboard/dist');
const ROWS = Number(process.env.BENCH_DASHBOARD_ROWS ?? 1_000_000);
const PAGES = 100;

export interface Timing {
  name: string;
  p50: number;
  p99: number;
  baselineP50?: number;
  baselineP99?: number;
}

export interface DashboardBench {
  rows: number;
  seedSeconds: number;
  firstLoad: { files: number; gzipKb: number; rawKb: number };
  pages: Timing[];
  signIn: Timing;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
function summarize(name: string, times: number[], baseline?: number[]): Timing {
  const s = [...times].sort((a, b) => a - b);
  const b = baseline ? [...baseline].sort((x, y) => x - y) : undefined;
  return {
    name,
    p50: quantile(s, 0.5),
    p99: quantile(s, 0.99),
    ...(b ? { baselineP50: quantile(b, 0.5), baselineP99: quantile(b, 0.99) } : {}),
  };
}

/** The JavaScript a first visit loads: index.html's module script and the chunks it preloads, gzipped. */
export function firstLoadJs(): { files: number; gzipKb: number; rawKb: number } {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const paths = [...html.matchAll(/(?:src|href)="\/dashboard\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  let gzip = 0;
  let raw = 0;
  for (const path of new Set(paths)) {
    const body = readFileSync(join(DIST, path));
    raw += body.length;
    gzip += gzipSync(body, { level: 9 }).length;
  }
  return { files: new Set(paths).size, gzipKb: Math.round(gzip / 102.4) / 10, rawKb: Math.round(raw / 102.4) / 10 };
}

export async function measureDashboard(makeDatabase: (name: string) => Promise<string>): Promise<DashboardBench> {
  const databaseUrl = await makeDatabase('dashboard');
  await applyMigrations(databaseUrl);
  const pool = createPool(databaseUrl, 2);
  const children: ChildProcess[] = [];
  try {
    const created = await createKeyService(createDatabase(pool), systemClock).create({
      tier: 'enterprise',
      account: 'bench-dash',
    });
    const accountId = (
      await pool.query<{ id: string }>(`SELECT id::text AS id FROM accounts WHERE name = 'bench-dash'`)
    ).rows[0]!.id;
    const keyId = (
      await pool.query<{ id: string }>(`SELECT id::text AS id FROM api_keys WHERE prefix = $1`, [created.prefix])
    ).rows[0]!.id;
    const seedStarted = performance.now();
    await pool.query(
      `INSERT INTO attestations (uid, account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id, schema_uid, attester, created_at, revoked_at)
       SELECT '0x' || encode(sha256(('dash' || g)::bytea), 'hex'), $1::uuid, $2::uuid,
              CASE WHEN g % 3 = 0 THEN 'ai' ELSE 'human' END, CASE WHEN g % 10 = 0 THEN 'onchain' ELSE 'offchain' END, 'confirmed',
              '0x' || encode(sha256(('content' || (g % 50000))::bytea), 'hex'), 'text/plain', 31337,
              '0x' || repeat('ab', 32), '0x' || repeat('cd', 20), now() - ($3 - g) * interval '1 second',
              CASE WHEN g % 100 = 0 THEN now() ELSE NULL END
       FROM generate_series(1, $3::int) g`,
      [accountId, keyId, ROWS],
    );
    await pool.query(
      `INSERT INTO audit_entries (account_id, at, action, actor_key_prefix, resource, outcome, ip, request_id, details, prev_hash, hash)
       SELECT $1::uuid, now() - ($2 - g) * interval '1 second', CASE WHEN g % 50 = 0 THEN 'key.created' ELSE 'attestation.created' END,
              $3, 'attestation:0x' || encode(sha256(g::text::bytea), 'hex'), 'success', '203.0.113.' || (g % 250), 'req-' || g,
              jsonb_build_object('mode', 'offchain'), encode(sha256(('prev' || g)::bytea), 'hex'), encode(sha256(('hash' || g)::bytea), 'hex')
       FROM generate_series(1, $2::int) g`,
      [accountId, ROWS, created.prefix],
    );
    await pool.query('ANALYZE attestations; ANALYZE audit_entries');
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const port = 18_990 + Math.floor(Math.random() * 9);
    const base = `http://localhost:${port}`;
    const api = await startChild(
      ['../service/bin/attestation-service.mjs', 'serve', '--api'],
      { DATABASE_URL: databaseUrl, PORT: String(port), PUBLIC_BASE_URL: base, LOG_LEVEL: 'warn', TRUST_PROXY: 'true' },
      /attestation-service: API on/,
    );
    children.push(api.child);

    // members: one owner to browse, and sign-in users (each signs in a few times: sign-in is limited per email)
    const password = 'bench-password-long';
    const signUp = async (email: string) => {
      const token = newInvitationToken();
      await pool.query(
        `INSERT INTO invitations (id, kind, token_hash, token_sealed, account_id, email, role, expires_at)
         VALUES ($1, 'member', $2, 'bench', $3, $4, 'owner', now() + interval '1 day')`,
        [randomUUID(), Buffer.from(tokenHash(token)), accountId, email],
      );
      const res = await fetch(`${base}/dashboard/api/auth/sign-up/email`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          origin: base,
          'x-invitation-token': token,
          'x-forwarded-for': ip(),
        },
        body: JSON.stringify({ email, password, name: email }),
      });
      const body = (await res.json()) as { user: { id: string } };
      await pool.query(`INSERT INTO members (id, account_id, user_id, role) VALUES ($1, $2, $3, 'owner')`, [
        randomUUID(),
        accountId,
        body.user.id,
      ]);
      return res.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
    };
    const cookie = await signUp('owner@bench.example');
    const call = async (path: string, input: unknown) => {
      const started = performance.now();
      const res = await fetch(`${base}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, {
        headers: { cookie, 'x-account-id': accountId },
      });
      const body = (await res.json()) as { result?: { data: { nextCursor: string | null } } };
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - started, next: body.result!.data.nextCursor };
    };
    const walk = async (path: string, filter: Record<string, unknown>) => {
      const times: number[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < PAGES; i++) {
        const page = await call(path, { ...filter, limit: 50, ...(cursor ? { cursor } : {}) });
        times.push(page.ms);
        if (!(cursor = page.next)) break;
      }
      return times;
    };
    // the bare keyset query of a page (index scan, 50 rows), timed the same way, as each page's floor
    const bare = async (sql: string, params: unknown[]) => {
      const times: number[] = [];
      let last = '9223372036854775807';
      for (let i = 0; i < PAGES; i++) {
        const started = performance.now();
        const { rows } = await pool.query<{ id: string }>(sql, [accountId, last, ...params]);
        times.push(performance.now() - started);
        last = rows.at(-1)?.id ?? last;
      }
      return times;
    };
    const attestationPage = (where: string) =>
      `SELECT id::text, uid, type, mode, status, content_hash, content_type, tx_hash, created_at, revoked_at FROM attestations
       WHERE account_id = $1 AND id < $2::bigint ${where} ORDER BY id DESC LIMIT 50`;
    const auditPage = (where: string) =>
      `SELECT id::text, at, action, actor_key_prefix, resource, outcome, ip, details FROM audit_entries
       WHERE account_id = $1 AND id < $2::bigint ${where} ORDER BY id DESC LIMIT 50`;

    const pages: Timing[] = [];
    const n = ROWS.toLocaleString('en');
    pages.push(
      summarize(
        `attestations, newest first (${n} in the account)`,
        await walk('dashboard.attestations.list', {}),
        await bare(attestationPage(''), []),
      ),
      summarize(
        'attestations, type = ai',
        await walk('dashboard.attestations.list', { type: 'ai' }),
        await bare(attestationPage(`AND type = 'ai'`), []),
      ),
      summarize(
        'attestations, revoked only (1 %)',
        await walk('dashboard.attestations.list', { revoked: true }),
        await bare(attestationPage('AND revoked_at IS NOT NULL'), []),
      ),
      summarize(
        `audit log, newest first (${n} entries)`,
        await walk('dashboard.audit.list', {}),
        await bare(auditPage(''), []),
      ),
      summarize(
        'audit log, action = key.created (2 %)',
        await walk('dashboard.audit.list', { action: 'key.created' }),
        await bare(auditPage(`AND action = 'key.created'`), []),
      ),
    );

    // sign-in: 20 sign-ins of 4 users (5 each, under the per-email limit), each from its own address
    const emails = await Promise.all(
      [1, 2, 3, 4].map(async (i) => (await signUp(`signin-${i}@bench.example`), `signin-${i}@bench.example`)),
    );
    const signIns: number[] = [];
    for (let round = 0; round < 5; round++)
      for (const email of emails) {
        const started = performance.now();
        const res = await fetch(`${base}/dashboard/api/auth/sign-in/email`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: base, 'x-forwarded-for': ip() },
          body: JSON.stringify({ email, password }),
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`sign-in: ${res.status}`);
        signIns.push(performance.now() - started);
      }
    const hash = await hashPassword(password);
    const verifies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      await verifyPassword({ hash, password });
      verifies.push(performance.now() - started);
    }
    return {
      rows: ROWS,
      seedSeconds,
      firstLoad: firstLoadJs(),
      pages,
      signIn: summarize('sign-in, email + password', signIns, verifies),
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await pool.end();
  }
}

function ip(): string {
  return `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
}

const ms = (v: number | undefined) => (v === undefined ? '' : v.toFixed(1));

export function renderDashboard(run: DashboardBench): string {
  const rows = run.pages.map(
    (p) => `| ${p.name} | ${ms(p.p50)} | ${ms(p.p99)} | ${ms(p.baselineP50)} | ${ms(p.baselineP99)} |`,
  );
  const s = run.signIn;
  const verdict = run.firstLoad.gzipKb <= 200 ? 'under' : 'OVER';
  return `
## Dashboard (same run)

First load: ${run.firstLoad.gzipKb} KB of JavaScript gzipped (${run.firstLoad.rawKb} KB raw, ${run.firstLoad.files} files:
the entry and the chunks it preloads), ${verdict} the 200 KB target; other pages' code loads when they are opened.

Pages of 50 through \`/trpc\` (a member's session cookie, one request at a time over loopback, ${PAGES} pages walked
by keyset), with ${run.rows.toLocaleString('en')} attestations and as many audit entries in the account (seeded in
${run.seedSeconds.toFixed(1)} s); baseline: the page's bare keyset query on the same database, from the bench process.

| page | p50 ms | p99 ms | bare query p50 ms | bare query p99 ms |
|---|---:|---:|---:|---:|
${rows.join('\n')}

Sign-in (email + password, ${'20'} sign-ins over HTTP): p50 ${ms(s.p50)} ms, p99 ${ms(s.p99)} ms; baseline, the scrypt
verification it performs, in process: p50 ${ms(s.baselineP50)} ms, p99 ${ms(s.baselineP99)} ms.
`;
}
