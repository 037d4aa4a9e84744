// A child of bench/anchoring.ts (run with --expose-gc, nothing else in the process): one anchor run over the
// database's unanchored off-chain attestations (the worker's own code, its steps timed by its own log line), then
// what a read would cost if proofs were recomputed from the anchor's leaves instead of stored, then
// @openzeppelin/merkle-tree's own builder on the same uids, then the same anchors and proofs written to a table of
// their own instead of the attestations' rows. Prints one JSON line of figures.
import { Writable } from 'node:stream';
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { createPublicClient, http } from 'viem';
import { createAnchorer } from '../src/anchoring/anchorer.ts';
import { buildAnchorTree } from '../src/anchoring/tree.ts';
import { systemClock } from '../src/clock.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { createLogger } from '../src/log.ts';

export interface PhaseFigure {
  ms: number;
  /** Peak of V8's heap plus memory outside it (Buffers), above where the phase started (MB). */
  peakMemoryMb: number;
  /** Peak resident set size of the process during the phase (MB). */
  peakRssMb: number;
  /** The longest the event loop waited during the phase (ms). */
  longestStallMs: number;
}

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** Runs `work`, sampling memory every 5 ms; a late sample is the event loop held up by then. */
async function phase<T>(work: () => Promise<T>): Promise<{ result: T; figure: PhaseFigure }> {
  gc();
  const used = () => {
    const m = process.memoryUsage();
    return { memory: m.heapUsed + m.external, rss: m.rss };
  };
  const start = used();
  let peak = start;
  let tick = performance.now();
  let stall = 0;
  const sampler = setInterval(() => {
    const now = used();
    peak = { memory: Math.max(peak.memory, now.memory), rss: Math.max(peak.rss, now.rss) };
    stall = Math.max(stall, performance.now() - tick - 5);
    tick = performance.now();
  }, 5);
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 20)); // a loop held up to the end is seen when it turns
  clearInterval(sampler);
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
  return {
    result,
    figure: {
      ms: Math.round(ms),
      peakMemoryMb: mb(Math.max(peak.memory, used().memory) - start.memory),
      peakRssMb: mb(peak.rss),
      longestStallMs: Math.round(stall),
    },
  };
}

const pool = createPool(process.env.DATABASE_URL!, 4);
// the bench's own fixtures and reads, as raw statements on its pool
const sql = {
  query: async <T extends object>(text: string, values?: unknown[]) =>
    (await pool.query<T & import('pg').QueryResultRow>(text, values)).rows,
};
const logged: Array<Record<string, unknown>> = [];
const lines = new Writable({
  write: (chunk: Buffer, _encoding, done) => (logged.push(JSON.parse(String(chunk))), done()),
});

/** Writes each attestation's anchor and proof to a table of their own, in the anchor run's chunks (dropped after). */
async function narrowTable(anchorId: string): Promise<PhaseFigure> {
  const rows = await sql.query<{ id: string; proof: Buffer }>(
    `SELECT id::text, anchor_proof AS proof FROM attestations WHERE anchor_id = $1 ORDER BY id`,
    [anchorId],
  );
  await sql.query(
    `CREATE TABLE bench_anchor_leaves (attestation_id bigint PRIMARY KEY, anchor_id bigint, proof bytea)`,
  );
  try {
    const { figure } = await phase(async () => {
      for (let from = 0; from < rows.length; from += 5_000) {
        const chunk = rows.slice(from, from + 5_000);
        await sql.query(
          `INSERT INTO bench_anchor_leaves SELECT v.id, $1::bigint, v.proof FROM unnest($2::bigint[], $3::bytea[]) AS v(id, proof)`,
          [anchorId, chunk.map((r) => r.id), chunk.map((r) => r.proof)],
        );
      }
    });
    return figure;
  } finally {
    await sql.query(`DROP TABLE bench_anchor_leaves`);
  }
}

try {
  const anchorer = createAnchorer({
    db: createDatabase(pool),
    pool,
    clock: systemClock,
    log: createLogger('info', lines),
    // asked only about anchors whose transaction failed: there are none here
    chain: { publicClient: createPublicClient({ transport: http('http://127.0.0.1:9') }), eas: '0x' },
  });
  const run = await phase(() => anchorer.run());
  const anchor = run.result.busy ? undefined : run.result.anchor;
  if (!anchor) throw new Error('nothing was anchored');
  const [stored] = await sql.query<{ bytes: number; rows: number }>(
    `SELECT sum(octet_length(anchor_proof))::int AS bytes, count(*)::int AS rows FROM attestations WHERE anchor_id = $1`,
    [anchor.id],
  );
  // what one read would do without stored proofs: the anchor's uids, their tree, the one proof asked for
  const recompute = await phase(async () => {
    const leaves = await sql.query<{ uid: string }>(`SELECT uid FROM attestations WHERE anchor_id = $1 ORDER BY id`, [
      anchor.id,
    ]);
    const tree = await buildAnchorTree(leaves.map((l) => l.uid));
    return tree.proofOf(leaves.length - 1).length;
  });
  const uids = (await sql.query<{ uid: string }>(`SELECT uid FROM attestations WHERE anchor_id = $1`, [anchor.id])).map(
    (r) => [r.uid],
  );
  const library = await phase(async () => {
    const tree = StandardMerkleTree.of(uids, ['bytes32']);
    if (tree.root !== anchor.root) throw new Error('the library built another root');
    return tree.getProof(0).length;
  });
  const narrow = await narrowTable(anchor.id);
  const made = logged.find((line) => line.msg === 'anchor made') as {
    selectMs: number;
    treeMs: number;
    assignMs: number;
  };
  console.log(
    JSON.stringify({
      leaves: anchor.leafCount,
      run: run.figure,
      steps: { selectMs: made.selectMs, treeMs: made.treeMs, assignMs: made.assignMs },
      storedProofBytes: stored!.bytes,
      recompute: recompute.figure,
      library: library.figure,
      narrow,
    }),
  );
} finally {
  await pool.end();
}
