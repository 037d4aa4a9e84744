// The topology test's load and checks (scripts/topology-test.sh runs it with this checkout's Node while it kills and
// restarts parts of the topology): mixed writes through nginx with the SDK, each call under its own Idempotency-Key,
// for TOPOLOGY_LOAD_SECONDS; then waits for the relayer and the webhooks to finish and checks the outcome
// (checks.ts). Prints a summary; exits 1 on any failure.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  createClient,
  isServiceError,
  type AttestationClient,
  type CreateAttestationInput,
  type Mode,
} from '../../../client/dist/index.js';
import { testDb } from '../support/db.ts';
import { startReceiver } from '../support/receiver.ts';
import { checkApi, checkChainAndQuotas, checkWebhooks, waitForDrain, type Outcome } from './checks.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const apiUrl = env('TOPOLOGY_API_URL');
const keys = JSON.parse(env('TOPOLOGY_KEYS')) as Array<{ key: string; tier: string; account: string }>;
const loadMs = Number(env('TOPOLOGY_LOAD_SECONDS')) * 1000;
const USERS = 8;
/** A call whose Idempotency-Key is still claimed by a request that died is retried this long (claims lapse at 2 min). */
const IN_PROGRESS_PATIENCE_MS = 150_000;

/** What the transport saw under the SDK: every attempt, so retries the SDK hid are counted. */
const transport = { attempts: 0, unavailable: 0, rateLimited: 0, connectionErrors: 0 };
const countingFetch: typeof fetch = async (input, init) => {
  transport.attempts++;
  try {
    const res = await fetch(input, init);
    if (res.status === 503 || res.status === 502) transport.unavailable++;
    if (res.status === 429) transport.rateLimited++;
    return res;
  } catch (error) {
    transport.connectionErrors++;
    throw error;
  }
};
const clients: AttestationClient[] = keys.map((k) =>
  createClient({ baseUrl: apiUrl, apiKey: k.key, fetch: countingFetch, retry: { maxRetries: 5, maxDelayMs: 10_000 } }),
);

const outcome: Outcome = {
  accepted: new Map(),
  revoked: new Map(),
  batches: new Map(),
  failures: [],
  counts: { offchain: 0, onchain: 0, batches: 0, revocations: 0, inProgressRetries: 0 },
};
/** Accepted, unrevoked uids by account: what revocations pick from. */
const revocable = new Map<string, string[]>();

/** Runs one SDK write under one Idempotency-Key; a 409 "still in progress" (its first try died) is tried again. */
async function write<T>(what: string, run: (idempotencyKey: string) => Promise<T>): Promise<T | undefined> {
  const idempotencyKey = crypto.randomUUID();
  const until = Date.now() + IN_PROGRESS_PATIENCE_MS;
  for (;;) {
    try {
      return await run(idempotencyKey);
    } catch (error) {
      const inProgress =
        isServiceError(error) &&
        error.code === 'IDEMPOTENCY_CONFLICT' &&
        (error.details as { inProgress?: boolean }).inProgress === true;
      if (inProgress && Date.now() < until) {
        outcome.counts.inProgressRetries++;
        await sleep(1000);
        continue;
      }
      const code = isServiceError(error) ? error.code : 'UNEXPECTED';
      outcome.failures.push(`${what}: ${code}: ${(error as Error).message}`);
      return undefined;
    }
  }
}

const item = (mode: Mode): CreateAttestationInput => ({
  type: Math.random() < 0.5 ? 'human' : 'ai',
  content: `topology ${randomBytes(12).toString('hex')}`,
  contentType: 'text/plain',
  mode,
});

function accept(uid: string, mode: Mode, keyIndex: number): void {
  const account = keys[keyIndex]!.account;
  outcome.accepted.set(uid.toLowerCase(), { mode, keyIndex, account });
  const pool = revocable.get(account) ?? [];
  pool.push(uid.toLowerCase());
  revocable.set(account, pool);
}

async function create(keyIndex: number, mode: Mode): Promise<void> {
  const body = item(mode); // the same request on every try: its Idempotency-Key stands for this body
  const created = await write(`create ${mode}`, (idempotencyKey) =>
    clients[keyIndex]!.attestations.create(body, { idempotencyKey }),
  );
  if (!created) return;
  outcome.counts[mode]++;
  accept(created.uid, mode, keyIndex);
}

async function batch(keyIndex: number): Promise<void> {
  const modes: Mode[] = ['onchain', 'offchain', 'onchain', 'offchain'];
  const body = { attestations: modes.map(item) };
  const result = await write('batch', (idempotencyKey) =>
    clients[keyIndex]!.attestations.batch(body, { idempotencyKey }),
  );
  if (!result) return;
  outcome.counts.batches++;
  outcome.batches.set(result.batchId, modes.filter((m) => m === 'onchain').length);
  result.attestations.forEach((a, i) => accept(a.uid, modes[i]!, keyIndex));
}

async function revoke(keyIndex: number): Promise<void> {
  const pool = revocable.get(keys[keyIndex]!.account) ?? [];
  if (pool.length === 0) return create(keyIndex, 'offchain');
  const uid = pool.splice(Math.floor(Math.random() * pool.length), 1)[0]!;
  const creator = outcome.accepted.get(uid)!.keyIndex;
  const done = await write(`revoke (created with key ${creator}, revoked with key ${keyIndex})`, (idempotencyKey) =>
    clients[keyIndex]!.attestations.revoke(uid, { reason: 'topology test' }, { idempotencyKey }),
  );
  if (!done) return;
  outcome.counts.revocations++;
  outcome.revoked.set(uid, outcome.accepted.get(uid)!.mode);
}

/** One simulated client: a mix of writes until the deadline, with a short pause between calls. */
async function user(index: number, deadline: number): Promise<void> {
  const keyIndex = index % keys.length;
  while (Date.now() < deadline) {
    const roll = Math.random();
    if (roll < 0.4) await create(keyIndex, 'offchain');
    else if (roll < 0.65) await create(keyIndex, 'onchain');
    else if (roll < 0.8) await batch(keyIndex);
    else await revoke(keyIndex);
    await sleep(50);
  }
}

const receiver = await startReceiver();
const firstKeyOf = new Map<string, number>();
keys.forEach((k, i) => firstKeyOf.has(k.account) || firstKeyOf.set(k.account, i));
for (const [account, keyIndex] of firstKeyOf) {
  const hook = await write(`subscribe ${account}`, () =>
    clients[keyIndex]!.webhooks.create({
      url: receiver.url,
      events: ['attestation.created', 'attestation.revoked'],
    }),
  );
  if (!hook) throw new Error(`could not subscribe ${account}: ${outcome.failures.join('; ')}`);
}

const startedAt = Date.now();
if (process.env.TOPOLOGY_STARTED_FILE) writeFileSync(process.env.TOPOLOGY_STARTED_FILE, String(startedAt));
console.log(`load: ${USERS} clients on ${keys.length} keys of ${firstKeyOf.size} accounts for ${loadMs / 1000} s`);
await Promise.all(Array.from({ length: USERS }, (_, i) => user(i, startedAt + loadMs)));
console.log(`load: done in ${Math.round((Date.now() - startedAt) / 1000)} s`);

const pool = new pg.Pool({ connectionString: env('TOPOLOGY_DATABASE_URL'), max: 2 });
pool.on('error', () => {}); // an idle connection cut by a restart is replaced at the next query
const db = testDb(pool);
// failed calls, one line per kind of call and code (with its first message), then every other problem
const failedBy = new Map<string, { count: number; first: string }>();
for (const failure of outcome.failures) {
  const [what, code] = failure.split(': ');
  const kind = `${what!.replace(/ \(.*\)$/, '')}: ${code}`;
  failedBy.set(kind, { count: (failedBy.get(kind)?.count ?? 0) + 1, first: failedBy.get(kind)?.first ?? failure });
}
const problems = [...failedBy].map(
  ([kind, { count, first }]) => `${count} SDK calls failed with ${kind}; first: ${first}`,
);
const drained = await waitForDrain(db, receiver, outcome, 150_000);
if (drained) problems.push(drained);
const enterprise = keys.findIndex((k) => k.tier === 'enterprise');
const api = await checkApi(clients[enterprise < 0 ? 0 : enterprise]!, outcome);
problems.push(...api.problems);
const chain = await checkChainAndQuotas(db, outcome, api.attesters, {
  rpcUrl: env('TOPOLOGY_CHAIN_URL'),
  eas: env('TOPOLOGY_EAS_ADDRESS') as `0x${string}`,
});
problems.push(...chain.problems);
const hooks = checkWebhooks(receiver.received, outcome);
problems.push(...hooks.problems);
await pool.end();
await receiver.close();

const c = outcome.counts;
console.log(
  `load: accepted ${outcome.accepted.size} attestations (${c.offchain} off-chain and ${c.onchain} on-chain creates, ` +
    `${c.batches} batches of 4), ${c.revocations} revocations; ${outcome.failures.length} SDK calls failed`,
);
console.log(
  `load: under the SDK: ${transport.attempts} HTTP attempts, ${transport.unavailable} answered 502/503, ` +
    `${transport.rateLimited} 429, ${transport.connectionErrors} connection errors (retried); ` +
    `${c.inProgressRetries} retries of a call whose key was still claimed`,
);
console.log(`check: ${api.summary}`);
console.log(`check: ${chain.summary}`);
console.log(`check: ${hooks.summary}`);
if (problems.length > 0) {
  for (const problem of problems.slice(0, 20)) console.error(`check: FAIL: ${problem}`);
  if (problems.length > 20) console.error(`check: … and ${problems.length - 20} more`);
  process.exit(1);
}
console.log('check: OK');
