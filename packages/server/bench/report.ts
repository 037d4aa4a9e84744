import type { Figure } from './measure.ts';
import type { GasFigures } from './gas.ts';
import { renderOnchain, type OnchainFigure } from './onchain.ts';

const TARGETS: Record<string, string> = {
  'POST /v1/attestations (off-chain)': '≥ 2× its plain handler, p99 < 50 ms',
  'GET /v1/attestations/:uid': '≥ 2× its plain handler, p99 < 25 ms',
  'GET /v1/attestations?hash=': '≥ 1.5× its plain handler, p99 < 25 ms',
};

/** BENCHMARKS.md: every figure next to the baseline measured in the same run. */
export function render(run: {
  figures: Figure[];
  signing: { ours: number; viem: number; implementation: string };
  gas: GasFigures;
  onchain: OnchainFigure[];
  seeded: number;
  seedSeconds: number;
  duration: number;
  machine: string;
  database: string;
}): string {
  const baseline = run.figures[0]!;
  const rows = run.figures.map((f) => {
    const ratio = f === baseline ? '1.00' : (f.requestsPerSecond / baseline.requestsPerSecond).toFixed(2);
    const target = Object.entries(TARGETS).find(([name]) => f.name.startsWith(name))?.[1] ?? '';
    return `| ${f.name} | ${f.requestsPerSecond.toLocaleString('en')} | ${ratio} | ${f.p50} | ${f.p99} | ${f.peakRssMb} | ${f.non2xx + f.errors} | ${target} |`;
  });
  return `# Benchmarks

Written by \`pnpm bench\` (packages/server/bench). Each figure is autocannon with 50 connections for ${run.duration} s
against the real service (\`serve --api\`, logging at info to a pipe, ${run.database}) on this machine, next to
a bare \`node:http\` handler returning a fixed JSON body measured in the same run. Load generator and server share
the machine: ${run.machine}.

| scenario | req/s | × baseline | p50 ms | p99 ms | peak RSS MB | non-2xx + errors | target |
|---|---:|---:|---:|---:|---:|---:|---|
${rows.join('\n')}

- Reads and searches run against ${run.seeded.toLocaleString('en')} stored attestations (seeded in ${run.seedSeconds.toFixed(1)} s),
  each request a random uid or content hash from a random client address (so the per-IP limit does not bite).
- Creates rotate over 100 enterprise keys (6 000/min each), each with new random content, off-chain mode: SHA-256,
  EIP-712 signature, one transaction with the audit entry.
- A process serving the API runs with a young generation of at most 2 × 8 MB (\`--max-semi-space-size=8\`, set
  by bin/attestation-service.mjs). The rows marked "V8's default" are a second \`serve --api\` on the same database
  with V8's own limit here, 2 × 32 MB: the baseline for that choice (throughput and peak RSS).

## Off-chain signing, one core

| signer | signatures/s |
|---|---:|
| viem \`signTypedData\` (baseline) | ${run.signing.viem.toLocaleString('en')} |
| ours: precomputed EIP-712 domain + ${run.signing.implementation} | ${run.signing.ours.toLocaleString('en')} (${(run.signing.ours / run.signing.viem).toFixed(1)}×) |

## Gas per on-chain attestation (EAS 1.4, same dev chain, same run)

| schema | single \`attest\` | per item, \`multiAttest\` of 100 |
|---|---:|---:|
| \`${run.gas.baseline.schema}\` (baseline) | ${run.gas.baseline.single.toLocaleString('en')} | ${run.gas.baseline.perItemOf100.toLocaleString('en')} |
| \`${run.gas.ours.schema}\` (ours) | ${run.gas.ours.single.toLocaleString('en')} (${pct(run.gas.ours.single, run.gas.baseline.single)}) | ${run.gas.ours.perItemOf100.toLocaleString('en')} (${pct(run.gas.ours.perItemOf100, run.gas.baseline.perItemOf100)}) |
| \`${run.gas.sourceType.string.schema}\` (not taken) | ${run.gas.sourceType.string.single.toLocaleString('en')} (${pct(run.gas.sourceType.string.single, run.gas.ours.single)} vs ours) | ${run.gas.sourceType.string.perItemOf100.toLocaleString('en')} (${pct(run.gas.sourceType.string.perItemOf100, run.gas.ours.perItemOf100)} vs ours) |
| \`${run.gas.sourceType.uint8.schema}\` (not taken) | ${run.gas.sourceType.uint8.single.toLocaleString('en')} (${pct(run.gas.sourceType.uint8.single, run.gas.ours.single)} vs ours) | ${run.gas.sourceType.uint8.perItemOf100.toLocaleString('en')} (${pct(run.gas.sourceType.uint8.perItemOf100, run.gas.ours.perItemOf100)} vs ours) |

The last two rows are the IPTC digital source type in the signed data; it is bound by the service's Verifiable
Credential and C2PA manifest instead (docs/decisions.md, "The digital source type").

An AI claim with its model and prompt hash beside one without, every item AI-generated:

| AI claim | single \`attest\` | per item, \`multiAttest\` of 100 |
|---|---:|---:|
| ${aiRow('without AI details: `' + run.gas.aiDetails.plain.schema + '` (ours)', run.gas.aiDetails.plain, run.gas.aiDetails.plain)}
| ${aiRow('schema version: `' + run.gas.aiDetails.version.schema + '` (not taken)', run.gas.aiDetails.version, run.gas.aiDetails.plain)}
| ${aiRow('ours + an AI-details attestation `string model,bytes32 promptHash` naming it by refUID, in the same `multiAttest` (not taken)', run.gas.aiDetails.refUid, run.gas.aiDetails.plain)}

Both ways of putting the model on chain cost an AI claim half again or more; it is signed off-chain as an AI-details
attestation naming the claim, and on chain by the Verifiable Credential (docs/decisions.md, "The model behind an AI
claim").

${renderOnchain(run.onchain).trimStart()}
## What caps each figure

- Every database round trip costs two system calls, which on these machines dominate a request's CPU (profiles:
  \`writev\` to the PostgreSQL socket was 28% of a read's CPU before batching). Reads, searches and key checks are
  therefore batched per event-loop turn into one query each, and creates are group-committed (at most two
  transactions in flight). That is what puts the service ahead of its plain same-work handlers, which pay a round
  trip (and PostgreSQL a statement, its plan and its own two system calls) per request. See docs/decisions.md,
  "Performance".
- Reads by uid and searches: an answer asked for again is held (docs/operations.md, "Answers held"): it costs one
  statement of versions, batched with the turn's others, and writing the held bytes. What is left is mostly the
  HTTP exchange itself, the request's log line with its redaction and the router's chain (rate limit, input rules,
  zod input). An answer not held reads its records in one statement per turn, splices each signed package in as
  PostgreSQL's text of it (docs/decisions.md, "Reads answer JSON text"), and a search's page (five records in this
  data set, about 12 KB) is then mostly bytes to build and write, on both sides.
- Off-chain create: signing (~24% of its CPU: keccak in JavaScript ~10%, libsecp256k1 ~8%, the uid), the group
  transaction's statements, and the router's middleware chain (auth, limits, zod in and out). The plain handler is
  bound by its transaction per create, which every create of one account takes in turn (the audit chain's head).
- \`/healthz\` is the floor of the router itself: URL and route matching, context, tRPC middleware, zod, one log
  line; the bare handler is ${floorRatio(run.figures)} faster. tRPC's middleware chain runs with its object-spread helper
  patched (docs/decisions.md, "tRPC's object spread").
- The load generator shares the two cores with the server, so every figure (and the baseline) is lower than on
  a machine with a separate client.
`;
}

/** How many times the bare baseline's rate /healthz's is. */
function floorRatio(figures: Figure[]): string {
  const health = figures.find((f) => f.name.startsWith('GET /healthz'));
  return health ? `${(figures[0]!.requestsPerSecond / health.requestsPerSecond).toFixed(1)}×` : 'several times';
}

function pct(ours: bigint, baseline: bigint): string {
  return `${Math.round((Number(ours) / Number(baseline) - 1) * 100)}%`;
}

/** A row of the AI-details table: its gas, and beside ours the change from an AI claim without details. */
function aiRow(label: string, figure: { single: bigint; perItemOf100: bigint }, plain: typeof figure): string {
  const vs = (a: bigint, b: bigint) => (figure === plain ? '' : ` (${a > b ? '+' : ''}${pct(a, b)} vs without)`);
  return `${label} | ${figure.single.toLocaleString('en')}${vs(figure.single, plain.single)} | ${figure.perItemOf100.toLocaleString('en')}${vs(figure.perItemOf100, plain.perItemOf100)} |`;
}
