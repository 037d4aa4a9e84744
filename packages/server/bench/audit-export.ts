// Audit export of 1 000 000 rows, CSV and JSON, over HTTP from child processes whose RSS is sampled: the real API
// (`serve --api`, a child of its own), the export pipeline alone (bench/audit-export-server.ts: the same code
// without the API's other modules), and as the baseline PostgreSQL's COPY ... TO STDOUT piped into a bare
// node:http response. Same database, same run.
import type { ChildProcess } from 'node:child_process';
import { systemClock } from '../src/clock.ts';
import { EXPORT_PAGE_ROWS } from '../src/audit/export.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { createKeyService } from '../src/keys/service.ts';
import { API_HEAP_FLAG, ownDataDir, rssMb, startChild, V8_DEFAULT_HEAP, V8_DEFAULT_HEAP_FLAG } from './children.ts';

const DEFAULT_HEAP = `(serve --api, ${V8_DEFAULT_HEAP})`;

export interface ExportFigure {
  name: string;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  megabytes: number;
  idleRssMb: number;
  peakRssMb: number;
}

export interface AuditExportBench {
  rows: number;
  seedSeconds: number;
  figures: ExportFigure[];
}

/** Downloads `url`, counting lines, while sampling the serving process's RSS every 50 ms. */
async function download(
  name: string,
  url: string,
  headers: Record<string, string>,
  pid: number,
  framingLines: number,
): Promise<ExportFigure> {
  await new Promise((r) => setTimeout(r, 1000)); // let the server settle before reading its idle RSS
  const idle = rssMb(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const started = performance.now();
  let bytes = 0;
  let lines = 0;
  try {
    const res = await fetch(url, { headers });
    if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    for await (const chunk of res.body! as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  const rows = lines - framingLines;
  return {
    name,
    rows,
    seconds,
    rowsPerSecond: Math.round(rows / seconds),
    megabytes: Math.round(bytes / 2 ** 20),
    idleRssMb: Math.round(idle),
    peakRssMb: Math.round(peak),
  };
}

/** Seeds `rows` audit entries for one account (generate_series) in a database of its own, and measures the downloads. */
export async function measureAuditExport(databaseUrl: string, rows = 1_000_000): Promise<AuditExportBench> {
  await applyMigrations(databaseUrl);
  const pool = createPool(databaseUrl, 1);
  let key: string;
  let accountId: string;
  const seedStarted = performance.now();
  try {
    const created = await createKeyService(createDatabase(pool), systemClock).create({
      tier: 'enterprise',
      account: 'bench-audit',
    });
    key = created.key;
    accountId = (await pool.query<{ id: string }>(`SELECT id::text AS id FROM accounts WHERE name = 'bench-audit'`))
      .rows[0]!.id;
    // realistic rows: an attestation.created entry each, one second apart, all within the default 30-day range
    await pool.query(
      `INSERT INTO audit_entries (account_id, at, action, actor_key_prefix, resource, outcome, ip, request_id, details, prev_hash, hash)
       SELECT $1::uuid, now() - ($2 - g) * interval '1 second', 'attestation.created', $3, 'attestation:0x' || encode(sha256(g::text::bytea), 'hex'),
              'success', '203.0.113.' || (g % 250), 'req-' || g, jsonb_build_object('mode', 'offchain', 'type', CASE WHEN g % 3 = 0 THEN 'ai' ELSE 'human' END),
              encode(sha256(('prev' || g)::bytea), 'hex'), encode(sha256(('hash' || g)::bytea), 'hex')
       FROM generate_series(1, $2::int) g`,
      [accountId, rows, created.prefix],
    );
    await pool.query('ANALYZE audit_entries');
  } finally {
    await pool.end();
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const children: ChildProcess[] = [];
  try {
    const port = 18_900 + Math.floor(Math.random() * 90);
    const api = await startChild(
      ['../service/bin/attestation-service.mjs', 'serve', '--api'],
      { DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', DATA_DIR: ownDataDir() },
      /attestation-service: API on/,
    );
    children.push(api.child);
    // the same API with V8's own young generation limit here (2 × 32 MB): the baseline for the bin's choice
    const defaultHeap = await startChild(
      [V8_DEFAULT_HEAP_FLAG, '../service/bin/attestation-service.mjs', 'serve', '--api'],
      { DATABASE_URL: databaseUrl, PORT: String(port + 1), LOG_LEVEL: 'warn', DATA_DIR: ownDataDir() },
      /attestation-service: API on/,
    );
    children.push(defaultHeap.child);
    // the two bench-only servers get the young generation limit that the bin gives the API
    const baseline = await startChild(
      [API_HEAP_FLAG, 'bench/audit-baseline-server.ts'],
      { DATABASE_URL: databaseUrl },
      /listening (\d+)/,
    );
    children.push(baseline.child);
    const lean = await startChild(
      [API_HEAP_FLAG, 'bench/audit-export-server.ts'],
      { DATABASE_URL: databaseUrl },
      /listening (\d+)/,
    );
    children.push(lean.child);
    const auth = { authorization: `Bearer ${key}` };
    const leanUrl = (format: string) => `http://127.0.0.1:${lean.match[1]}/?format=${format}&account=${accountId}`;
    const figures = [
      await download(
        'baseline: COPY … TO STDOUT (CSV) piped to node:http',
        `http://127.0.0.1:${baseline.match[1]}/?account=${accountId}`,
        {},
        baseline.child.pid!,
        1,
      ),
      await download('export pipeline alone, CSV', leanUrl('csv'), {}, lean.child.pid!, 1),
      await download('export pipeline alone, JSON', leanUrl('json'), {}, lean.child.pid!, 2),
      await download(
        'GET /v1/audit/export?format=csv (serve --api)',
        `http://127.0.0.1:${port}/v1/audit/export?format=csv`,
        auth,
        api.child.pid!,
        1,
      ),
      await download(
        'GET /v1/audit/export?format=json (serve --api)',
        `http://127.0.0.1:${port}/v1/audit/export?format=json`,
        auth,
        api.child.pid!,
        2,
      ),
      await download(
        `GET /v1/audit/export?format=csv ${DEFAULT_HEAP}`,
        `http://127.0.0.1:${port + 1}/v1/audit/export?format=csv`,
        auth,
        defaultHeap.child.pid!,
        1,
      ),
      await download(
        `GET /v1/audit/export?format=json ${DEFAULT_HEAP}`,
        `http://127.0.0.1:${port + 1}/v1/audit/export?format=json`,
        auth,
        defaultHeap.child.pid!,
        2,
      ),
    ];
    return { rows, seedSeconds, figures };
  } finally {
    for (const proc of children) proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The BENCHMARKS.md section. */
export function renderAuditExport(run: AuditExportBench): string {
  const baseline = run.figures[0]!;
  const rows = run.figures.map((f) => {
    const ratio = f === baseline ? '1.00' : (f.rowsPerSecond / baseline.rowsPerSecond).toFixed(2);
    return `| ${f.name} | ${f.rows.toLocaleString('en')} | ${f.rowsPerSecond.toLocaleString('en')} | ${ratio} | ${f.seconds.toFixed(1)} | ${f.megabytes} | ${f.idleRssMb} | ${f.peakRssMb} |`;
  });
  const verdict = (f: ExportFigure | undefined) =>
    f ? `${f.peakRssMb} MB, ${f.peakRssMb < 150 ? 'under' : 'over'} the target` : 'not measured';
  const api = run.figures.filter((f) => f.name.endsWith('(serve --api)'));
  const pipeline = run.figures.filter((f) => f.name.startsWith('export pipeline'));
  const highest = (list: ExportFigure[]) =>
    list.reduce<ExportFigure | undefined>((a, f) => (a && a.peakRssMb >= f.peakRssMb ? a : f), undefined);
  return `
## Audit export, ${run.rows.toLocaleString('en')} entries of one account (same run)

Seeded with \`generate_series\` in ${run.seedSeconds.toFixed(1)} s; each download read to the end over loopback by the bench
process, the serving process's RSS sampled every 50 ms. Target: peak RSS under 150 MB, whatever the size.

| what | rows | rows/s | × baseline | s | MB sent | RSS before MB | peak RSS MB |
|---|---:|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

- Peak RSS: the export pipeline alone ${verdict(highest(pipeline))}; the API process (\`serve --api\`) ${verdict(highest(api))}, having
  started at ${api[0]?.idleRssMb ?? '?'} MB before any export.
- The export reads keyset pages of ${EXPORT_PAGE_ROWS} rows (the next page's query under way while one is written), each row
  rendered by PostgreSQL as one JSON or CSV line, written in strings of at most 100 rows, waiting for \`drain\`.
- "export pipeline alone" is the same code (\`keysetPages\` → \`AuditExport\` → \`sendStreamed\`) in a process without
  the API's other modules: what the export itself holds. Its peak does not grow with the row count.
- \`serve --api\` runs the JSON export after the CSV one in the same process, so its "before" is the CSV export's
  end: a second export does not add to the first. What the API process holds beyond the pipeline is its modules
  (viem and the EAS artifacts, Kysely, tRPC and the OpenAPI document, pino), loaded from the compile cache that
  \`./dev setup\` fills, so without Node's type stripper; the two bench-only servers are plain \`.ts\` files and
  load it (about 18 MB).
- Every process here has a young generation of at most 2 × 8 MB, as the bin gives a process serving the API. Under a long export
  V8 grows the young generation to its limit, which is most of the difference between "before" and "peak". The
  last two rows are the same exports from a \`serve --api\` with V8's own limit here, 2 × 32 MB.
- The baseline streams CSV with no per-row JavaScript at all; the export's extra cost is its keyset round trips,
  the per-row SQL rendering (CSV escaping) and the HTTP layer.
`;
}
