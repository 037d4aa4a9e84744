import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttestationService } from '../../src/attestations/service.ts';
import { systemClock } from '../../src/clock.ts';
import { createDatabase } from '../../src/db/database.ts';
import { injectInsertFault } from '../support/faults.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ worker: false });
}, 60_000);
afterAll(() => svc?.stop());

const CLIENTS = 40;
const sha = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;
const body = (contentHash: string) => ({ type: 'human', contentHash, contentType: 'text/plain', mode: 'offchain' });

/** Every client (its own account and key) sends one off-chain create with its own Idempotency-Key, all at once. */
async function createAtOnce(hashes: string[]) {
  const clients = await Promise.all(
    hashes.map(async (hash) => ({ hash, key: (await svc.createKey()).key, idempotencyKey: randomUUID() })),
  );
  const send = (c: (typeof clients)[number]) => {
    const headers = { 'idempotency-key': c.idempotencyKey };
    return call(svc.url, 'POST', '/v1/attestations', { key: c.key, body: body(c.hash), headers });
  };
  const responses = await Promise.all(clients.map(send));
  return { clients, responses, send };
}

describe('group commit: one member never fails another', () => {
  it('concurrent creates share transactions (the premise of the next test)', async () => {
    const { responses } = await createAtOnce(Array.from({ length: CLIENTS }, () => sha(randomUUID())));
    expect(responses.every((r) => r.status === 201)).toBe(true);
    const uids = responses.map((r) => r.body.uid);
    // rows written by one transaction carry its id in xmin (raw SQL: a system column, which no typed table declares)
    const text = `SELECT count(DISTINCT xmin::text)::int AS n FROM attestations WHERE uid = ANY($1)`;
    const [transactions] = await svc.sql.query<{ n: number }>(text, [uids]);
    expect(transactions!.n).toBeLessThan(CLIENTS);
  });

  it('one member failing in PostgreSQL gets 500; every other is stored, audited and replayable', async () => {
    const hashes = Array.from({ length: CLIENTS }, () => sha(randomUUID()));
    const guilty = 17;
    const removeFault = await injectInsertFault(svc, hashes[guilty]!);
    let run: Awaited<ReturnType<typeof createAtOnce>>;
    try {
      run = await createAtOnce(hashes);
    } finally {
      await removeFault();
    }
    const { clients, responses, send } = run;

    expect(responses[guilty]!.status).toBe(500);
    expect(responses[guilty]!.body).toMatchObject({ code: 'INTERNAL_ERROR', details: {} });
    expect(JSON.stringify(responses[guilty]!.body)).not.toMatch(/injected|content_hash|INSERT|attestations/i);

    const innocent = responses.filter((_, i) => i !== guilty);
    expect(innocent.map((r) => r.status)).toEqual(innocent.map(() => 201));
    const uids = innocent.map((r) => r.body.uid as string);
    const stored = await svc.db.selectFrom('attestations').select('uid').where('uid', 'in', uids).execute();
    expect(stored).toHaveLength(CLIENTS - 1);
    const resources = uids.map((u) => `attestation:${u}`);
    const audited = await svc.db
      .selectFrom('auditEntries')
      .select('id')
      .where('resource', 'in', resources)
      .where('action', '=', 'attestation.created')
      .execute();
    expect(audited).toHaveLength(CLIENTS - 1);
    const none = await svc.db
      .selectFrom('attestations')
      .select('id')
      .where('contentHash', '=', hashes[guilty]!)
      .execute();
    expect(none).toHaveLength(0);

    // the idempotency claims: completed for the stored ones (a replay, no second row), released for the failed one
    const replays = await Promise.all(clients.map(send));
    replays.forEach((replay, i) => {
      if (i === guilty) return;
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.uid).toBe(responses[i]!.body.uid);
    });
    expect(replays[guilty]!.status).toBe(201);
    expect(replays[guilty]!.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('batched reads: one member never fails another', () => {
  it('one search failing by an injected fault gets 500; the others get their pages', async () => {
    const hashes = Array.from({ length: 30 }, () => sha(randomUUID()));
    const { key } = await svc.createKey('enterprise');
    const create = (hash: string) => call(svc.url, 'POST', '/v1/attestations', { key, body: body(hash) });
    const created = await Promise.all(hashes.map(create));
    expect(created.every((r) => r.status === 201)).toBe(true);
    const guilty = hashes[11]!;

    // the service's own database, except that any search carrying the guilty hash fails (as a broken index page
    // would): a group's searches are one JSON parameter of members
    const pool = new pg.Pool({ connectionString: svc.databaseUrl, max: 4 });
    let groups = 0;
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (text: string, values?: unknown[]) => Promise<unknown>;
      Object.assign(client, {
        query: (text: string, values?: unknown[]) => {
          const members = text.includes('jsonb_to_recordset')
            ? (JSON.parse(String(values?.[0])) as Array<{ content_hash: string }>)
            : [];
          if (members.length > 1) groups++;
          if (members.some((m) => m.content_hash === guilty))
            return Promise.reject(Object.assign(new Error('read'), { code: 'XX001' }));
          return query(text, values);
        },
      });
    });
    const original = svc.services.attestations;
    const signer = undefined as never; // searches sign nothing
    const onchain = undefined as never; // nor go on-chain
    const deps = {
      db: createDatabase(pool),
      clock: systemClock,
      signer,
      onchain,
      chainId: 0,
      verifyBaseUrl: 'https://verify.example',
    };
    svc.services.attestations = createAttestationService(deps);
    let results: Awaited<ReturnType<typeof call>>[];
    try {
      results = await Promise.all(hashes.map((h) => call(svc.url, 'GET', `/v1/attestations?hash=${h}`)));
    } finally {
      svc.services.attestations = original;
      await pool.end();
    }

    expect(groups).toBeGreaterThan(0); // the searches did share queries
    results.forEach((res, i) => {
      if (hashes[i] === guilty) return expect(res).toMatchObject({ status: 500, body: { code: 'INTERNAL_ERROR' } });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0].contentHash).toBe(hashes[i]);
    });
  });
});
