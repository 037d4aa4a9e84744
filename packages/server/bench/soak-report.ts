// What pnpm bench:soak (bench/soak.ts) measures per process, the rule it holds them to, and its BENCHMARKS.md section.
import { cpus } from 'node:os';

export const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 10);
/** Requests in one round, whatever the machine's speed, so that every round is the same work. */
export const REQUESTS = Number(process.env.SOAK_REQUESTS ?? 5000);
export const CONNECTIONS = 50;
/** glibc's own arena count (8 per core), the baseline's. */
export const GLIBC_ARENAS = String(8 * cpus().length);
const GROWTH_LIMIT = 0.1;

export interface SoakRun {
  name: string;
  /** The baseline run is measured, not held to the targets. */
  baseline: boolean;
  target: number;
  /** RSS MB when ready, before any load. */
  idle: number;
  /** RSS MB two seconds after each round. */
  after: number[];
  /** RSS MB after each round once a full garbage collection has run in the process: what it keeps (the rule). */
  collected: number[];
  /** Peak RSS MB during each round (sampled every 100 ms). */
  peak: number[];
  requestsPerSecond: number[];
  failed: number;
}

/** Why a run fails the soak, if it does. */
export function verdict(run: SoakRun): string[] {
  const problems: string[] = [];
  const second = run.collected[1] ?? run.collected[0]!;
  const last = run.collected.at(-1)!;
  if (last > second * (1 + GROWTH_LIMIT))
    problems.push(
      `${run.name}: RSS after round ${run.collected.length} and a full collection ${last} MB, over round 2's ` +
        `${second} MB + 10 %`,
    );
  const peak = Math.max(...run.peak);
  if (peak > run.target) problems.push(`${run.name}: peak RSS ${peak} MB over the ${run.target} MB target`);
  if (run.failed > 0) problems.push(`${run.name}: ${run.failed} errors, timeouts or 5xx`);
  return problems;
}

/** The BENCHMARKS.md section. */
export function renderSoak(runs: SoakRun[], machine: string): string {
  const rounds = runs[0]!.after.map((_, i) => `${i + 1}`);
  const header = `| process | idle | ${rounds.join(' | ')} | peak | mean req/s | target |`;
  const align = `|---|---:|${rounds.map(() => '---:|').join('')}---:|---:|---|`;
  const mean = (list: number[]) => Math.round(list.reduce((a, b) => a + b, 0) / list.length);
  const table = (pick: (r: SoakRun) => number[]) =>
    [header, align]
      .concat(
        runs.map(
          (r) =>
            `| ${r.name} | ${r.idle.toFixed(0)} | ${pick(r).join(' | ')} | ${Math.max(...r.peak)} | ` +
            `${mean(r.requestsPerSecond).toLocaleString('en')} | ${r.baseline ? '' : `≤ ${r.target} MB`} |`,
        ),
      )
      .join('\n');
  return `
## Memory

Written by \`pnpm bench:soak\`. ${machine}. ${ROUNDS} rounds of ${REQUESTS.toLocaleString('en')} requests of mixed load
(${CONNECTIONS} connections: reads by uid, searches, off-chain creates, 0.2 % on-chain creates, \`/healthz\`,
\`/dashboard/\`; under \`serve\` 10 of them on badges and pages of the verification app; every request from its own
client address) against each process: its RSS in MB after each round, its peak during any round (sampled every
100 ms), and its mean rate. The reads and searches ask, at random, for 3,000 records seeded first; before round 1
each process is asked once for each of them, so that the rounds start with the answers held that a steady service
holds for what it is asked (docs/operations.md, "Answers held"), not with a bounded cache filling round by round.
The database is vacuumed and analyzed before the rounds and after each, as autovacuum would. The processes run side
by side and are loaded in turn, round by round. The bin sets V8's old-generation growth and glibc's arenas and
mmap threshold for a process that serves the API (docs/decisions.md, "Memory").
The baseline of \`serve\` has V8's and glibc's own (\`--heap-growing-percent=0\`,
\`GLIBC_TUNABLES=glibc.malloc.arena_max=${GLIBC_ARENAS}\`: 8 arenas per core, the moving threshold); that of
\`serve --api\` has the bin's settings but glibc's moving mmap threshold.

RSS after each round and a full garbage collection (asked through the process's inspector): what the process keeps.

${table((r) => r.collected)}

RSS two seconds after each round, before that collection: V8 still holds heap it grew for the round and gives it
back only once allocation slows, so these move by tens of MB with the moment they are read.

${table((r) => r.after)}

- The soak fails when the RSS after the last round's collection is over round 2's by more than
  ${GROWTH_LIMIT * 100} %, or a peak is over its target.
- The load generator shares the machine with the service, so the rates are this run's, not capacity.
`;
}
