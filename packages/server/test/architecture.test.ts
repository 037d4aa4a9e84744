import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The shape of packages/server/src, read from its imports (every relative import of every .ts file, type-only ones
 * too; generated/ is Prisma's output and is not read). The rules:
 *
 * 1. Every top-level folder is either infrastructure or a feature (a new folder must be classed here).
 *    - Infrastructure (db, http, chain, system, tracing, and generated: Prisma's client) knows no feature: what a feature
 *      gives it (relay work, a streamed body, route docs) goes through an interface the infrastructure declares.
 *    - Features (attestations, anchoring, webhooks, audit, keys, idempotency, limits, accounts, overview, dashboard,
 *      ...) may use infrastructure and each other; dashboard/ (sign-in, sessions, the support team) may use the
 *      others' services, none of them uses it.
 *    - A feature's dashboard procedures live in the feature, beside its public ones (`<feature>/dashboard-router.ts`
 *      beside `router.ts`; a folder with several dashboard routers names them by key: accounts/'s `members-router.ts`,
 *      ...): no `dashboard/<feature>-router.ts` exists for a feature folder; dashboard/ keeps its own routers
 *      (`session-router.ts`, `support-router.ts`).
 *    - accounts/ owns the accounts, members and invitations tables: no other folder has a statement on them (rule 5).
 * 2. Folder dependencies form a graph without cycles.
 * 3. Files at src/ root are of two kinds:
 *    - the kernel (errors, clock, log, config, plural, rules): anything may import them, and they import no folder;
 *    - the composition root (main, app, index, router, services, trpc, worker, infrastructure, ...):
 *      it may import anything, and no folder imports it, except a folder's entry points where they plug into it:
 *      its routers (`router.ts`, `*-router.ts`) import trpc.ts (the procedures they build on:
 *      public, authed, unmetered, session, member), and its `cli.ts`
 *      imports infrastructure.ts (the type of what a command is handed).
 */
const INFRASTRUCTURE = ['db', 'http', 'chain', 'system', 'tracing', 'generated'];
const FEATURES = [
  'attestations',
  'anchoring',
  'webhooks',
  'audit',
  'keys',
  'idempotency',
  'limits',
  'accounts',
  'overview',
  'dashboard',
  'attesters',
  'mail',
  'credentials',
  'domains',
];
const KERNEL = ['errors.ts', 'clock.ts', 'log.ts', 'config.ts', 'config-schema.ts', 'plural.ts', 'rules.ts'];

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' && dir === SRC ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of a file (static, type-only, re-exports and dynamic `import()`), as paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((specifier) => relative(SRC, resolve(dirname(file), specifier)));
}

/** A path's top-level folder, or undefined for a file at src/ root. */
const folderOf = (path: string): string | undefined => (path.includes('/') ? path.split('/')[0] : undefined);

const edges = sourceFiles(SRC).flatMap((file) => {
  const from = relative(SRC, file);
  return importsOf(file).map((to) => ({ from, to }));
});

/** Folder → the folders it imports. */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (!a || !b || a === b) continue;
    graph.set(a, (graph.get(a) ?? new Set()).add(b));
  }
  return graph;
}

/** One cycle of the graph as a path (first node repeated at the end), or undefined when there is none. */
function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * 4. Queries live in stores: a feature's `store.ts` or `<name>-store.ts`, and db/ (the client, its pool, migrations).
 *    Any other file (services, tasks, routers, metrics, the composition root) neither imports the client (kysely,
 *    pg) nor builds a statement; from db/database.ts it takes the type `Db` and the transaction boundary
 *    `inTransaction`, and infrastructure.ts (which opens the database) `createDatabase` too.
 */
const isStore = (path: string) => folderOf(path) === 'db' || /(^|\/|-)store\.ts$/.test(path);
const CLIENT = /from\s+'(kysely|pg|pg-[a-z-]+)'/;
const STATEMENT =
  /\.(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|executeQuery|withoutPlugins)\(|\bsql`|\bsql\.(raw|ref|table|lit|id)\(/;
const DATABASE_IMPORT = /import\s*\{([^}]*)\}\s*from\s*'[./]*(?:\.\.\/)*db\/database\.ts'/g;

function outsideStores(files: Array<[path: string, text: string]>): string[] {
  return files.flatMap(([path, text]) => {
    if (isStore(path)) return [];
    const allowed = new Set(['Db', 'inTransaction', ...(path === 'infrastructure.ts' ? ['createDatabase'] : [])]);
    const taken = [...text.matchAll(DATABASE_IMPORT)].flatMap((m) =>
      m[1]!
        .split(',')
        .map((name) => name.replace(/\btype\s+/, '').trim())
        .filter(Boolean),
    );
    return [
      ...(CLIENT.test(text) ? [`${path} imports the database client`] : []),
      ...(STATEMENT.test(text) ? [`${path} builds a statement`] : []),
      ...taken.filter((name) => !allowed.has(name)).map((name) => `${path} imports ${name} from db/database.ts`),
    ];
  });
}

/**
 * 5. accounts/ owns the accounts, members and invitations tables: no file elsewhere names them in a statement (a query
 *    builder's table or join, or SQL text); another feature calls accounts/'s functions, or joins its `accountsJoin`.
 */
const ACCOUNT_TABLES = '(accounts|members|invitations)';
const ACCOUNT_STATEMENT = new RegExp(
  `\\.(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|(inner|left|right|full|cross)Join(Lateral)?|table|id|ref)` +
    `\\(\\s*'${ACCOUNT_TABLES}\\b|\\b(FROM|JOIN|UPDATE|INTO|TABLE)\\s+"?${ACCOUNT_TABLES}\\b`,
);

function accountStatementsOutsideAccounts(files: Array<[path: string, text: string]>): string[] {
  return files
    .filter(([path, text]) => folderOf(path) !== 'accounts' && ACCOUNT_STATEMENT.test(text))
    .map(([path]) => `${path} has a statement on accounts, members or invitations`);
}

/** `dashboard/<name>-router.ts` files whose name is a feature folder: that feature's dashboard router is in it. */
function featureRoutersInDashboard(paths: string[]): string[] {
  const folders = new Set(paths.map(folderOf));
  return paths.filter((path) => {
    const name = /^dashboard\/(.+)-router\.ts$/.exec(path)?.[1];
    return name !== undefined && name !== 'dashboard' && folders.has(name);
  });
}

describe('the folders of packages/server/src', () => {
  it('reads the source (the rules below check something)', () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(
      edges.some(({ from, to }) => from === 'attestations/service.ts' && to === 'attestations/record-store.ts'),
    ).toBe(true);
  });

  it('classes every top-level folder as infrastructure or feature', () => {
    const folders = new Set(
      sourceFiles(SRC)
        .map((file) => folderOf(relative(SRC, file)))
        .filter((f) => f !== undefined),
    );
    expect([...folders].filter((f) => !INFRASTRUCTURE.includes(f) && !FEATURES.includes(f))).toEqual([]);
  });

  it('has no cycle among folders', () => {
    expect(findCycle(folderGraph())).toBeUndefined();
  });

  it('keeps infrastructure free of features', () => {
    const wrong = edges.filter(
      ({ from, to }) => INFRASTRUCTURE.includes(folderOf(from) ?? '') && FEATURES.includes(folderOf(to) ?? ''),
    );
    expect(wrong.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('keeps the kernel free of folders', () => {
    const wrong = edges.filter(({ from, to }) => KERNEL.includes(from) && folderOf(to) !== undefined);
    expect(wrong.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('lets no folder import the composition root, except its router (trpc.ts) and CLI (infrastructure.ts)', () => {
    const wrong = edges
      .filter(({ from, to }) => folderOf(from) !== undefined && folderOf(to) === undefined && !KERNEL.includes(to))
      .filter(({ from, to }) => !(/(\/|-)router\.ts$/.test(from) && to === 'trpc.ts'))
      .filter(({ from, to }) => !(from.endsWith('/cli.ts') && to === 'infrastructure.ts'))
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(wrong).toEqual([]);
  });

  it('keeps every query in a store: no other file imports the database client or builds a statement', () => {
    expect(outsideStores(sourceFiles(SRC).map((file) => [relative(SRC, file), readFileSync(file, 'utf8')]))).toEqual(
      [],
    );
  });

  it('finds a query outside a store when there is one (the check can fail)', () => {
    expect(
      outsideStores([
        ['webhooks/service.ts', "import { sql } from 'kysely';"],
        ['webhooks/metrics.ts', "await db.selectFrom('webhookDeliveries').selectAll().execute();"],
        ['keys/service.ts', "import { createDatabase, type Db } from '../db/database.ts';"],
        ['keys/store.ts', "import { sql } from 'kysely';\nawait db.selectFrom('apiKeys').selectAll().execute();"],
        ['keys/cli.ts', "import { inTransaction, type Db } from '../db/database.ts';"],
      ]),
    ).toEqual([
      'webhooks/service.ts imports the database client',
      'webhooks/metrics.ts builds a statement',
      'keys/service.ts imports createDatabase from db/database.ts',
    ]);
  });

  it('keeps every statement on accounts, members and invitations in accounts/', () => {
    const files = sourceFiles(SRC).map((file): [string, string] => [relative(SRC, file), readFileSync(file, 'utf8')]);
    expect(accountStatementsOutsideAccounts(files)).toEqual([]);
    // the check reads something: accounts/'s stores have such statements
    const inAccounts = files.filter(([path, text]) => path.startsWith('accounts/') && ACCOUNT_STATEMENT.test(text));
    expect(inAccounts.map(([path]) => path)).toEqual(
      expect.arrayContaining(['accounts/store.ts', 'accounts/member-store.ts', 'accounts/invitation-store.ts']),
    );
  });

  it("keeps a feature's dashboard procedures in the feature, not in dashboard/", () => {
    expect(featureRoutersInDashboard(sourceFiles(SRC).map((file) => relative(SRC, file)))).toEqual([]);
  });

  it('finds a statement on accounts elsewhere, and a feature router in dashboard/ (the checks can fail)', () => {
    expect(
      accountStatementsOutsideAccounts([
        ['keys/store.ts', "await db.selectFrom('accounts').select('plan').execute();"],
        ['mail/store.ts', "db.selectFrom('apiKeys as k').innerJoin('members as m', 'm.userId', 'k.createdBy')"],
        ['audit/store.ts', 'await sql`UPDATE invitations SET revoked_at = now()`.execute(db);'],
        ['accounts/store.ts', "await db.updateTable('accounts').set({ plan }).execute();"],
        ['keys/service.ts', "// the accounts table's plan; db.selectFrom('apiKeys')"],
      ]),
    ).toEqual([
      'keys/store.ts has a statement on accounts, members or invitations',
      'mail/store.ts has a statement on accounts, members or invitations',
      'audit/store.ts has a statement on accounts, members or invitations',
    ]);
    expect(
      featureRoutersInDashboard(['dashboard/keys-router.ts', 'dashboard/session-router.ts', 'keys/store.ts']),
    ).toEqual(['dashboard/keys-router.ts']);
  });

  it('finds a cycle and an infrastructure import when there is one (the checks can fail)', () => {
    expect(
      findCycle(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['c'])],
          ['c', new Set(['a'])],
        ]),
      ),
    ).toEqual(['a', 'b', 'c', 'a']);
    expect(
      findCycle(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['c'])],
        ]),
      ),
    ).toBeUndefined();
  });
});
