import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../support/service.ts';

// Two API processes on one database: `held` keeps its public reads' answers (the default ANSWER_CACHE_MB), `fresh`
// keeps none. Whatever changes, and whichever process changes it, both must answer a read with the same bytes.
let held: TestService;
let fresh: TestService;

beforeAll(async () => {
  held = await startTestService();
  fresh = await startTestService({
    env: { DATABASE_URL: held.config.databaseUrl!, ANSWER_CACHE_MB: '0' },
    worker: false,
  });
}, 60_000);
afterAll(async () => {
  await fresh?.stop();
  await held?.stop();
});

const sha = (text: string) => `0x${createHash('sha256').update(text).digest('hex')}`;

async function create(svc: TestService, key: string, content: string) {
  const res = await call(svc.url, 'POST', '/v1/attestations', {
    key,
    body: { type: 'human', content, contentType: 'text/plain', mode: 'offchain' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.uid as string;
}

/** A read's status and body from `svc`, as its bytes. */
async function read(svc: TestService, path: string): Promise<[number, string]> {
  const res = await fetch(`${svc.url}${path}`);
  return [res.status, await res.text()];
}

/** Asks `held` twice (the second from what it holds, when it holds it) and `fresh` once: all three the same. */
async function agreedRead(path: string, status = 200) {
  const first = await read(held, path);
  expect(first[0]).toBe(status);
  expect(await read(held, path)).toEqual(first);
  expect(await read(fresh, path)).toEqual(first);
  return JSON.parse(first[1]) as Record<string, any>;
}

const agreed = async (query: string) =>
  (await agreedRead(`/v1/attestations?${query}`)) as { data: Array<Record<string, any>>; nextCursor: string | null };

describe('public reads with answers held', () => {
  it('answers what PostgreSQL holds now: a create by another process and a revocation are seen at once', async () => {
    const { key } = await held.createKey('pro');
    const content = `held search ${Math.random()}`;
    const query = `hash=${sha(content)}`;
    const first = await create(held, key, content);
    expect((await agreed(query)).data.map((r) => r.uid)).toEqual([first]);

    const second = await create(fresh, key, content); // the other process: nothing tells `held`
    expect((await agreed(query)).data.map((r) => r.uid)).toEqual([second, first]);

    expect((await agreedRead(`/v1/attestations/${first}`)).revoked).toBe(false);
    const revoked = await call(held.url, 'POST', `/v1/attestations/${first}/revoke`, { key });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const page = await agreed(query);
    expect(page.data.map((r) => [r.uid, r.revoked])).toEqual([
      [second, false],
      [first, true],
    ]);
    expect((await agreedRead(`/v1/attestations/${first}`)).revoked).toBe(true);
  });

  it('holds each page of a cursor on its own, and sees what a record reads from other rows change', async () => {
    const { key } = await held.createKey('pro');
    const content = `held pages ${Math.random()}`;
    const older = await create(held, key, content);
    const newer = await create(held, key, content);
    const one = await agreed(`hash=${sha(content)}&limit=1`);
    expect(one.data.map((r) => r.uid)).toEqual([newer]);
    const rest = `hash=${sha(content)}&limit=1&cursor=${one.nextCursor}`;
    expect((await agreed(rest)).data.map((r) => [r.uid, r.anchor])).toEqual([[older, null]]);

    // anchored: the record's row names an anchor whose transaction is not mined yet (still no anchor shown), then
    // only the anchor's row changes, as the relayer's receipt changes it
    const [anchor] = await held.db
      .insertInto('anchors')
      .values({ root: sha(`root ${content}`), leafCount: 1 })
      .returning('id')
      .execute();
    await held.db
      .updateTable('attestations')
      .set({ anchorId: anchor!.id, anchorProof: Buffer.alloc(0) })
      .where('uid', '=', older)
      .execute();
    expect((await agreed(rest)).data[0]!.anchor).toBeNull();
    expect((await agreedRead(`/v1/attestations/${older}`)).anchor).toBeNull();
    await held.db
      .updateTable('anchors')
      .set({ txHash: sha(`tx ${content}`), blockNumber: '7', timestamp: new Date('2026-11-29T12:00:00Z') })
      .where('id', '=', anchor!.id)
      .execute();
    expect((await agreed(rest)).data[0]!.anchor).toMatchObject({ txHash: sha(`tx ${content}`), blockNumber: 7 });
    expect((await agreedRead(`/v1/attestations/${older}`)).anchor).toMatchObject({ txHash: sha(`tx ${content}`) });
  });

  it('answers the same bytes as a process that holds nothing: unknown and uppercase hashes and uids, a gone record', async () => {
    const { key } = await held.createKey('pro');
    const content = `held case ${Math.random()}`;
    const uid = await create(held, key, content);
    expect((await agreedRead(`/v1/attestations/${uid.toUpperCase().replace('0X', '0x')}`)).uid).toBe(uid);
    expect((await agreedRead(`/v1/attestations/0x${'ab'.repeat(32)}`, 404)).code).toBe('NOT_FOUND');
    expect((await agreed(`hash=${sha(content).toUpperCase().replace('0X', '0x')}`)).data).toHaveLength(1);
    expect(await agreed(`hash=${sha(`nothing ${content}`)}`)).toEqual({ data: [], nextCursor: null });
  });
});
