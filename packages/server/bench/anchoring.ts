// Anchoring: gas per anchored attestation at 100, 10,000 and 100,000 per interval next to timestamping each
// uid with EAS.multiTimestamp (bench/anchoring-gas.ts), and the anchor run at 100,000 in a child process of its own
// (bench/anchoring-task.ts): its time, memory and event-loop stalls, next to recomputing proofs on read and to
// @openzeppelin/merkle-tree's own builder. Same run, same machine.
import { cpus, loadavg } from 'node:os';
import { runMigrations } from 'graphile-worker';
import { systemClock } from '../src/clock.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';
import { createKeyService } from '../src/keys/service.ts';
import { measureAnchorGas, type AnchorGas } from './anchoring-gas.ts';
import type { PhaseFigure } from './anchoring-task.ts';
import { startChild } from './children.ts';

// ANCHOR_COUNTS / ANCHOR_LEAVES shrink a trial run; the figures in BENCHMARKS.md are the defaults'
const COUNTS = (process.env.ANCHOR_COUNTS ?? '100,10000,100000').split(',').map(Number);
const TASK_LEAVES = Number(process.env.ANCHOR_LEAVES ?? 100_000);

export interface AnchoringBench {
  /** The machine, and how busy it was when the section started (it may be shared with other work). */
  machine: string;
  gas: AnchorGas;
  seedSeconds: number;
  task: {
    leaves: number;
    run: PhaseFigure;
    /** The run's steps, from its own log line. */
    steps: { selectMs: number; treeMs: number; assignMs: number };
    storedProofBytes: number;
    recompute: PhaseFigure;
    library: PhaseFigure;
    /** The anchors and proofs written to a table of their own instead (the design not taken). */
    narrow: PhaseFigure;
  };
}

/** An off-chain package of the size the service stores (the rows the anchor run updates are realistic). */
const PACKAGE = {
  sig: {
    version: 2,
    uid: `0x${'1'.repeat(64)}`,
    domain: { name: 'EAS Attestation', version: '1.4.0', chainId: 31337, verifyingContract: `0x${'2'.repeat(40)}` },
    primaryType: 'Attest',
    types: {
      Attest: ['version:uint16', 'schema:bytes32', 'recipient:address', 'time:uint64', 'expirationTime:uint64']
        .concat(['revocable:bool', 'refUID:bytes32', 'data:bytes', 'salt:bytes32'])
        .map((field) => ({ name: field.split(':')[0], type: field.split(':')[1] })),
    },
    message: {
      version: 2,
      schema: `0x${'3'.repeat(64)}`,
      recipient: `0x${'0'.repeat(40)}`,
      time: '1735732800',
      expirationTime: '0',
      revocable: true,
      refUID: `0x${'0'.repeat(64)}`,
      data: `0x${'4'.repeat(128)}`,
      salt: `0x${'5'.repeat(64)}`,
    },
    signature: { v: 27, r: `0x${'6'.repeat(64)}`, s: `0x${'7'.repeat(64)}` },
  },
  signer: `0x${'2'.repeat(40)}`,
};

/** `count` off-chain attestations of one account, made with generate_series, none anchored. */
async function seed(databaseUrl: string, count: number): Promise<number> {
  await applyMigrations(databaseUrl);
  await runMigrations({ connectionString: databaseUrl }); // the anchor run queues a relay job
  const pool = createPool(databaseUrl, 1);
  const started = performance.now();
  try {
    await createKeyService(createDatabase(pool), systemClock).create({
      tier: 'enterprise',
      account: 'bench-anchoring',
    });
    await pool.query(
      `INSERT INTO attestations (uid, account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id, schema_uid, attester, offchain, created_at)
       SELECT '0x' || encode(sha256(('anchored' || g)::bytea), 'hex'), k.account_id, k.id, 'human', 'offchain', 'confirmed',
              '0x' || encode(sha256(('content' || g)::bytea), 'hex'), 'text/plain', 31337, '0x' || repeat('3', 64),
              '0x' || repeat('2', 40), $2::jsonb, now() - (($1 - g) * interval '1 millisecond')
       FROM generate_series(1, $1::int) g, (SELECT id, account_id FROM api_keys LIMIT 1) k`,
      [count, JSON.stringify(PACKAGE)],
    );
    await pool.query('ANALYZE attestations');
  } finally {
    await pool.end();
  }
  return (performance.now() - started) / 1000;
}

export async function measureAnchoring(makeDatabase: (name: string) => Promise<string>): Promise<AnchoringBench> {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()[0]!.toFixed(1)} at the start`;
  const gas = await measureAnchorGas(COUNTS);
  const databaseUrl = await makeDatabase('anchoring');
  const seedSeconds = await seed(databaseUrl, TASK_LEAVES);
  const { match } = await startChild(
    ['--expose-gc', 'bench/anchoring-task.ts'],
    { DATABASE_URL: databaseUrl },
    /^\{.*\}$/m,
  );
  return { machine, gas, seedSeconds, task: JSON.parse(match[0]) as AnchoringBench['task'] };
}

const thousands = (value: number | bigint) => value.toLocaleString('en');
const seconds = (ms: number) => (ms / 1000).toFixed(1);

export function renderAnchoring(run: AnchoringBench): string {
  const { gas, task } = run;
  const rows = gas.figures.map((f) => {
    const per = (total: bigint) => (Number(total) / f.attestations).toFixed(f.attestations >= 10_000 ? 2 : 1);
    const ratio = (Number(f.multiGas) / Number(f.anchorGas)).toFixed(0);
    return `| ${thousands(f.attestations)} | ${thousands(f.anchorGas)} | ${per(f.anchorGas)} | ${thousands(f.multiGas)} (${f.multiTransactions} tx) | ${per(f.multiGas)} | ${thousands(Number(ratio))}× |`;
  });
  const phase = (name: string, f: PhaseFigure) =>
    `| ${name} | ${seconds(f.ms)} | ${f.peakMemoryMb} | ${f.peakRssMb} | ${f.longestStallMs} |`;
  return `
## Anchoring off-chain attestations (same run)

${run.machine} (a machine other work may share: times are this run's, gas is exact).

Gas on a fresh anvil (block gas limit ${thousands(gas.blockGasLimit)}): one \`EAS.timestamp(root)\` of the Merkle root of N
uids, next to timestamping each uid with \`EAS.multiTimestamp\` in transactions of ${thousands(gas.multiChunk)} uids
(95% of a block), summed.

| attestations per interval | anchor gas | per attestation | multiTimestamp gas | per attestation | multiTimestamp ÷ anchor |
|---:|---:|---:|---:|---:|---:|
${rows.join('\n')}

The anchor run at ${thousands(task.leaves)} off-chain attestations (seeded in ${run.seedSeconds.toFixed(1)} s), in a process of its own:
select the unanchored rows, build the tree, give each row its anchor and proof (${thousands(Math.round(task.storedProofBytes / task.leaves))} bytes a row,
${Math.round(task.storedProofBytes / 2 ** 20)} MB in all) in transactions of 5,000 rows, queue the relayer. Memory is V8's heap plus
Buffers above where the phase started; RSS is the whole process's.

| phase | s | peak memory MB | peak RSS MB | longest event-loop stall ms |
|---|---:|---:|---:|---:|
${phase('anchor run (stored proofs)', task.run)}
${phase('one read, if proofs were recomputed: the anchor’s uids, their tree, one proof', task.recompute)}
${phase('@openzeppelin/merkle-tree’s own StandardMerkleTree.of on the same uids (same root)', task.library)}
${phase('the same anchors and proofs inserted into a table of their own (not taken)', task.narrow)}

- The anchor run's steps: select ${seconds(task.steps.selectMs)} s, tree ${seconds(task.steps.treeMs)} s (${thousands(3 * task.leaves)} keccak256 on bytes,
  yielding to the event loop every 2,000), each row given its anchor and proof ${seconds(task.steps.assignMs)} s (transactions
  of 5,000 rows: the update rewrites each row and its ten index entries).
- Proofs are stored with each attestation: a read costs one column, where recomputing would cost every read of an
  anchored record the second row above. The library's own builder is the third row (same root).
- A table of their own would write the anchors and proofs for a fraction of the update (last row), but then which
  attestations no anchor holds yet has no index to ask (docs/decisions.md, "Anchoring").
`;
}
