// node bench/prisma-vs-raw.ts — Prisma against the raw pg pool on the same queries, on the real local PostgreSQL.
// Run by hand (not in CI or `pnpm bench`): it decides which path each store takes (docs/decisions.md, "Persistence:
// which path is which"). Each query runs N times one after another, then N times from 50 callers at once, on pools
// of the same size; the figure is the median time per call, and calls per second.
import { randomBytes, randomUUID } from 'node:crypto';
import { batched } from '../src/db/group-commit.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { PrismaPg } from '@prisma/adapter-pg';
import type { Db } from '../src/db/prisma.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { createDatabase, type Db as Kysely } from '../src/db/database.ts';
import { createPool, pgSql, type Sql } from '../src/db/sql.ts';
import { findKeysForAuth } from '../src/keys/store.ts';
import { benchDatabases } from './databases.ts';

const N = Number(process.env.N ?? 5_000);
const CONCURRENCY = 50;
const POOL_SIZE = 10;
const ACCOUNTS = 200;
const KEYS_PER_ACCOUNT = 5;
const SUBSCRIPTIONS_PER_ACCOUNT = 10;
const AUDIT_ROWS = 20_000;
const AUDIT_PAGE = 5_000;

interface Query {
  name: string;
  raw: (i: number) => Promise<unknown>;
  prisma: (i: number) => Promise<unknown>;
  /** Calls per run when N would take too long (whole audit pages). */
  calls?: number;
}

interface Figures {
  medianMs: number;
  perSecond: number;
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs `fn` `calls` times from `callers` concurrent loops; each call timed on its own. */
async function measure(fn: (i: number) => Promise<unknown>, calls: number, callers: number): Promise<Figures> {
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < calls) {
        const i = next++;
        const at = performance.now();
        await fn(i);
        times.push(performance.now() - at);
      }
    }),
  );
  return { medianMs: median(times), perSecond: calls / ((performance.now() - started) / 1000) };
}

async function seed(sql: Sql): Promise<{ prefixes: string[]; accounts: string[] }> {
  const accounts = Array.from({ length: ACCOUNTS }, () => randomUUID());
  await sql.query(
    `INSERT INTO accounts (id, name, name_key) SELECT a, 'bench-' || a, 'bench-' || a FROM unnest($1::uuid[]) AS a`,
    [accounts],
  );
  const keys = accounts.flatMap((account) =>
    Array.from({ length: KEYS_PER_ACCOUNT }, () => ({ account, prefix: randomBytes(6).toString('hex') })),
  );
  await sql.query(
    `INSERT INTO api_keys (id, account_id, prefix, secret_hash, tier)
     SELECT gen_random_uuid(), a, p, sha256(p::bytea), 'pro' FROM unnest($1::uuid[], $2::text[]) AS k(a, p)`,
    [keys.map((k) => k.account), keys.map((k) => k.prefix)],
  );
  await sql.query(
    `INSERT INTO webhook_subscriptions (id, account_id, url, events, secret, created_at)
     SELECT gen_random_uuid(), a, 'https://hooks.example/' || a || '/' || n, ARRAY['attestation.created'],
       repeat('0', 64), now() - n * interval '1 s'
     FROM unnest($1::uuid[]) AS a, generate_series(1, $2) AS n`,
    [accounts, SUBSCRIPTIONS_PER_ACCOUNT],
  );
  await sql.query(
    `INSERT INTO audit_entries (account_id, at, action, resource, outcome, details, prev_hash, hash)
     SELECT $1, now(), 'attestation.created', 'attestation:' || n, 'success', jsonb_build_object('n', n),
       repeat('0', 64), repeat('1', 64)
     FROM generate_series(1, $2) AS n`,
    [accounts[0], AUDIT_ROWS],
  );
  await sql.query('ANALYZE');
  return { prefixes: keys.map((k) => k.prefix), accounts };
}

function queries(sql: Sql, db: Db, seeded: { prefixes: string[]; accounts: string[] }, kysely: Kysely): Query[] {
  const prefix = (i: number) => seeded.prefixes[(i * 7919) % seeded.prefixes.length]!;
  const account = (i: number) => seeded.accounts[(i * 7919) % seeded.accounts.length]!;
  const prismaKeys = async (prefixes: string[]) => {
    const rows = await db.apiKey.findMany({
      where: { prefix: { in: prefixes } },
      include: { account: { select: { name: true } } },
    });
    return new Map(rows.map((row) => [row.prefix, { ...row, accountName: row.account.name }]));
  };
  const rawBatched = batched(
    async (prefixes: string[]) => {
      const found = await findKeysForAuth(kysely, prefixes);
      return prefixes.map((p) => found.get(p));
    },
    { maxInFlight: 2 },
  );
  const prismaBatched = batched(
    async (prefixes: string[]) => {
      const found = await prismaKeys(prefixes);
      return prefixes.map((p) => found.get(p));
    },
    { maxInFlight: 2 },
  );
  const firstAccount = seeded.accounts[0]!;
  return [
    {
      name: 'key authentication lookup (one prefix)',
      raw: (i) => findKeysForAuth(kysely, [prefix(i)]),
      prisma: (i) => prismaKeys([prefix(i)]),
    },
    {
      name: 'key authentication lookup, batched()',
      raw: (i) => rawBatched(prefix(i)),
      prisma: (i) => prismaBatched(prefix(i)),
    },
    {
      name: 'webhook subscription list (10 rows)',
      raw: (i) =>
        sql.query(
          `SELECT id, url, events, created_at AS "createdAt" FROM webhook_subscriptions
         WHERE account_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
          [account(i)],
        ),
      prisma: (i) =>
        db.webhookSubscription.findMany({
          where: { accountId: account(i), deletedAt: null },
          select: { id: true, url: true, events: true, createdAt: true },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        }),
    },
    {
      name: `audit verify page (${AUDIT_PAGE} rows)`,
      calls: 40,
      raw: (i) =>
        sql.query(
          `SELECT id::text AS id, account_id::text AS "accountId", at, action, actor_key_prefix AS "actorKeyPrefix",
           resource, outcome, ip, request_id AS "requestId", details, prev_hash AS "prevHash", hash
         FROM audit_entries WHERE account_id = $1::uuid AND id > $2::bigint ORDER BY audit_entries.id LIMIT $3`,
          [firstAccount, String((i % 4) * AUDIT_PAGE), AUDIT_PAGE],
        ),
      prisma: (i) =>
        db.auditEntry.findMany({
          where: { accountId: firstAccount, id: { gt: BigInt((i % 4) * AUDIT_PAGE) } },
          orderBy: { id: 'asc' },
          take: AUDIT_PAGE,
        }),
    },
  ];
}

const cell = (f: Figures) =>
  `${f.medianMs.toFixed(3).padStart(8)} ms ${Math.round(f.perSecond).toString().padStart(7)}/s`;

const databases = benchDatabases(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
try {
  const url = await databases.make('prisma_vs_raw');
  await applyMigrations(url);
  const pool = createPool(url, POOL_SIZE);
  // as db/prisma.ts builds it, with the pg pool's size instead of the service's 4
  const db: Db = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: POOL_SIZE }) });
  const sql = pgSql(pool);
  try {
    const seeded = await seed(sql);
    console.log(`N=${N} (audit pages: 40), pools of ${POOL_SIZE}; median per call and calls per second`);
    const heads = ['raw, sequential', 'Prisma, sequential', 'raw, 50 at once', 'Prisma, 50 at once'];
    console.log(`${'query'.padEnd(42)}${heads.map((head) => head.padEnd(23)).join('')}`);
    for (const query of queries(sql, db, seeded, createDatabase(pool))) {
      const calls = query.calls ?? N;
      // warm both (connections, Prisma's query plan cache, the JIT) before timing
      await measure(query.raw, Math.min(calls, 200), CONCURRENCY);
      await measure(query.prisma, Math.min(calls, 200), CONCURRENCY);
      const figures = [
        await measure(query.raw, calls, 1),
        await measure(query.prisma, calls, 1),
        await measure(query.raw, calls, CONCURRENCY),
        await measure(query.prisma, calls, CONCURRENCY),
      ];
      console.log(`${query.name.padEnd(42)}${figures.map((f) => cell(f).padEnd(23)).join('')}`);
    }
  } finally {
    await Promise.all([pool.end(), db.$disconnect()]);
  }
} finally {
  await databases.dropAll();
}
