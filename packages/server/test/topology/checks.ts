// What the topology test checks once its load is over (load.ts): the API has every accepted create, the chain has each
// on-chain one exactly once and nothing else from the relayer, every key's quota counter equals its attestations on
// chain, and every event was delivered, duplicates only under one delivery id.
import { setTimeout as sleep } from 'node:timers/promises';
import { createPublicClient, http, parseAbiItem } from 'viem';
import type { AttestationClient, Mode } from '../../../client/dist/index.js';
import type { Db } from '../support/db.ts';
import type { Received } from '../support/receiver.ts';

export interface Outcome {
  /** Every uid the SDK reported created, lower case. */
  accepted: Map<string, { mode: Mode; keyIndex: number; account: string }>;
  /** Every uid the SDK reported revoked, with its mode. */
  revoked: Map<string, Mode>;
  /** Every accepted batch: its on-chain items. */
  batches: Map<string, number>;
  failures: string[];
  counts: { offchain: number; onchain: number; batches: number; revocations: number; inProgressRetries: number };
}

interface Checked {
  problems: string[];
  summary: string;
}

const eventKey = (type: string, uid: string) => `${type} ${uid.toLowerCase()}`;

function expectedEvents(outcome: Outcome): Set<string> {
  const expected = new Set<string>();
  for (const uid of outcome.accepted.keys()) expected.add(eventKey('attestation.created', uid));
  for (const uid of outcome.revoked.keys()) expected.add(eventKey('attestation.revoked', uid));
  return expected;
}

function receivedEvents(received: Received[]): Map<string, { deliveries: Set<string>; count: number }> {
  const events = new Map<string, { deliveries: Set<string>; count: number }>();
  for (const request of received) {
    const body = JSON.parse(request.body) as { type: string; data: { uid: string } };
    const key = eventKey(body.type, body.data.uid);
    const seen = events.get(key) ?? { deliveries: new Set<string>(), count: 0 };
    seen.deliveries.add(String(request.headers['x-service-delivery']));
    seen.count++;
    events.set(key, seen);
  }
  return events;
}

/** Waits (bounded) until no write waits for the relayer, no delivery is pending and every expected event arrived. */
export async function waitForDrain(
  db: Db,
  receiver: { received: Received[] },
  outcome: Outcome,
  timeoutMs: number,
): Promise<string | undefined> {
  const expected = expectedEvents(outcome);
  const deadline = Date.now() + timeoutMs;
  let state = '';
  while (Date.now() < deadline) {
    try {
      const relaying = await db
        .selectFrom('attestations')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where((eb) => eb.or([eb('status', '=', 'pending'), eb('revokeState', '=', 'pending')]))
        .executeTakeFirstOrThrow();
      const delivering = await db
        .selectFrom('webhookDeliveries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('state', '=', 'pending')
        .executeTakeFirstOrThrow();
      const events = receivedEvents(receiver.received);
      const missing = [...expected].filter((e) => !events.has(e)).length;
      state = `${relaying.n} writes wait for the relayer, ${delivering.n} deliveries pending, ${missing} events missing`;
      if (Number(relaying.n) === 0 && Number(delivering.n) === 0 && missing === 0) return undefined;
    } catch (error) {
      state = `the database did not answer: ${(error as Error).message}`;
    }
    await sleep(1000);
  }
  return `not drained after ${timeoutMs / 1000} s: ${state}`;
}

/** Reads every accepted uid through the API (8 at a time): it is there, in its mode, revoked exactly when we revoked it. */
export async function checkApi(
  client: AttestationClient,
  outcome: Outcome,
): Promise<Checked & { attesters: Set<string> }> {
  const problems: string[] = [];
  const attesters = new Set<string>();
  const uids = [...outcome.accepted.keys()];
  let next = 0;
  const reader = async () => {
    while (next < uids.length) {
      const uid = uids[next++]!;
      try {
        const record = await client.attestations.get(uid);
        const wanted = outcome.accepted.get(uid)!;
        if (record.mode !== wanted.mode) problems.push(`${uid} is ${record.mode}, created ${wanted.mode}`);
        if (record.revoked !== outcome.revoked.has(uid))
          problems.push(`${uid} revoked=${record.revoked}, expected ${outcome.revoked.has(uid)}`);
        if (record.mode === 'onchain') attesters.add(record.attester.toLowerCase());
      } catch (error) {
        problems.push(`GET ${uid}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, reader));
  return { problems, attesters, summary: `the API answers all ${uids.length} accepted uids as created and revoked` };
}

const ATTESTED = parseAbiItem(
  'event Attested(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID)',
);
const REVOKED = parseAbiItem(
  'event Revoked(address indexed recipient, address indexed attester, bytes32 uid, bytes32 indexed schemaUID)',
);

/** Compares the relayer's Attested and Revoked logs with what was accepted and what the database counted. */
export async function checkChainAndQuotas(
  db: Db,
  outcome: Outcome,
  attesters: Set<string>,
  chain: { rpcUrl: string; eas: `0x${string}` },
): Promise<Checked> {
  const problems: string[] = [];
  if (attesters.size !== 1) return { problems: [`on-chain attesters: ${[...attesters].join(', ')}`], summary: '' };
  const attester = [...attesters][0] as `0x${string}`;
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  const range = { address: chain.eas, args: { attester }, fromBlock: 0n, toBlock: 'latest' } as const;
  const attested = (await client.getLogs({ ...range, event: ATTESTED })).map((l) => l.args.uid!.toLowerCase());
  const revokedOnChain = (await client.getLogs({ ...range, event: REVOKED })).map((l) => l.args.uid!.toLowerCase());

  const times = (list: string[]) =>
    list.reduce((m, uid) => m.set(uid, (m.get(uid) ?? 0) + 1), new Map<string, number>());
  const attestedTimes = times(attested);
  const revokedTimes = times(revokedOnChain);
  for (const [uid, { mode }] of outcome.accepted) {
    if (mode === 'onchain' && attestedTimes.get(uid) !== 1)
      problems.push(`accepted on-chain ${uid} is on chain ${attestedTimes.get(uid) ?? 0} times`);
  }
  for (const [uid, mode] of outcome.revoked) {
    if (mode === 'onchain' && revokedTimes.get(uid) !== 1)
      problems.push(`revoked on-chain ${uid} has ${revokedTimes.get(uid) ?? 0} Revoked logs`);
  }

  // every uid the relayer put on chain is one confirmed row: a create sent twice would leave one without
  const rows = await db
    .selectFrom('attestations')
    .select(['uid', 'apiKeyId', 'accountId', 'quotaPeriod', 'status'])
    .where('mode', '=', 'onchain')
    .execute();
  const byUid = new Map(rows.filter((r) => r.uid).map((r) => [r.uid!.toLowerCase(), r]));
  const orphans = attested.filter((uid) => byUid.get(uid)?.status !== 'confirmed');
  if (orphans.length > 0) problems.push(`${orphans.length} on-chain attestations have no confirmed row: ${orphans[0]}`);
  const confirmed = rows.filter((r) => r.status === 'confirmed' && !attestedTimes.has(r.uid!.toLowerCase()));
  if (confirmed.length > 0) problems.push(`${confirmed.length} confirmed on-chain rows are not on chain`);
  const notAccepted = attested.filter((uid) => !outcome.accepted.has(uid)).length;

  // one call, one outcome: no Idempotency-Key of a single create holds two attestations, no batch more than it asked
  const confirmedOnchain = db
    .selectFrom('attestations')
    .where('mode', '=', 'onchain')
    .where('status', '=', 'confirmed');
  const twice = await confirmedOnchain
    .select(['apiKeyId', 'idempotencyKey'])
    .where('idempotencyKey', 'is not', null)
    .groupBy(['apiKeyId', 'idempotencyKey'])
    .having((eb) =>
      eb.or([
        eb(eb.fn.count('batchId').distinct(), '>', 1),
        eb(eb.fn.countAll().filterWhere('batchId', 'is', null), '>', 1),
      ]),
    )
    .execute();
  if (twice.length) problems.push(`${twice.length} Idempotency-Keys carry more than one on-chain outcome`);
  const perBatch = await confirmedOnchain
    .select((eb) => ['batchId', eb.fn.countAll<string>().as('n')])
    .where('batchId', 'is not', null)
    .groupBy('batchId')
    .execute();
  const batchCounts = new Map(perBatch.map((r) => [r.batchId, Number(r.n)]));
  for (const [batchId, onchain] of outcome.batches) {
    if (batchCounts.get(batchId) !== onchain)
      problems.push(`batch ${batchId} has ${batchCounts.get(batchId) ?? 0} on-chain items, asked ${onchain}`);
  }

  // quota: every key's and account's counter equals its attestations on chain, month by month
  const onChainBy = new Map<string, number>();
  for (const uid of attested) {
    const row = byUid.get(uid);
    if (!row) continue;
    for (const holder of [`key ${row.apiKeyId}`, `account ${row.accountId}`]) {
      const k = `${holder} ${row.quotaPeriod}`;
      onChainBy.set(k, (onChainBy.get(k) ?? 0) + 1);
    }
  }
  const byKey = await db.selectFrom('monthlyUsage').select(['apiKeyId', 'period', 'onchainUsed']).execute();
  const byAccount = await db.selectFrom('accountMonthlyUsage').select(['accountId', 'period', 'onchainUsed']).execute();
  const counted = new Map<string, number>([
    ...byKey.map((r) => [`key ${r.apiKeyId} ${r.period}`, r.onchainUsed] as const),
    ...byAccount.map((r) => [`account ${r.accountId} ${r.period}`, r.onchainUsed] as const),
  ]);
  for (const holder of new Set([...onChainBy.keys(), ...counted.keys()])) {
    if ((onChainBy.get(holder) ?? 0) !== (counted.get(holder) ?? 0))
      problems.push(`quota of ${holder}: counter ${counted.get(holder) ?? 0}, on chain ${onChainBy.get(holder) ?? 0}`);
  }
  const keysCounted = [...counted.keys()].filter((h) => h.startsWith('key ')).length;
  return {
    problems,
    summary:
      `chain: ${attested.length} Attested and ${revokedOnChain.length} Revoked logs from ${attester}, each accepted ` +
      `one exactly once (${notAccepted} on chain not reported accepted); quota counters of ${keysCounted} keys and ` +
      `their accounts equal their attestations on chain`,
  };
}

/** Every expected event arrived at least once, and each event's copies share one X-Service-Delivery. */
export function checkWebhooks(received: Received[], outcome: Outcome): Checked {
  const problems: string[] = [];
  const events = receivedEvents(received);
  const expected = expectedEvents(outcome);
  const missing = [...expected].filter((e) => !events.has(e));
  if (missing.length > 0) problems.push(`${missing.length} events never delivered, e.g. ${missing[0]}`);
  let duplicates = 0;
  for (const [key, seen] of events) {
    if (seen.deliveries.size > 1) problems.push(`${key} delivered under ${seen.deliveries.size} delivery ids`);
    duplicates += seen.count - 1;
  }
  return {
    problems,
    summary:
      `webhooks: ${received.length} deliveries of ${events.size} events, all ${expected.size} expected among them; ` +
      `${duplicates} repeated, each under its first delivery id`,
  };
}
