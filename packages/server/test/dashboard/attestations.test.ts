import { EAS } from '@ethereum-attestation-service/eas-sdk';
import { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashContent } from '../../src/attestations/content.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, type TestService } from '../support/service.ts';
import { createMember, startDashboardService, trpc, type TestMember } from './support.ts';

type Item = { type: 'human' | 'ai'; mode: 'onchain' | 'offchain'; content: string };

describe('dashboard attestations', () => {
  let service: TestService;
  let provider: JsonRpcProvider;
  let eas: EAS;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    service = await startDashboardService({ worker: true, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    provider = new JsonRpcProvider(service.chain.rpcUrl, undefined, { staticNetwork: true });
    eas = new EAS(service.chain.eas);
    eas.connect(provider as never);
  }, 60_000);
  afterAll(async () => {
    provider?.destroy();
    await Promise.all(receivers.map((r) => r.close()));
    await service?.stop();
  });

  /** A key of the member's account, through which REST creates its attestations. */
  const keyOf = async (member: TestMember) => (await service.createKey('enterprise', member.accountName)).key;

  /** Creates the items in one batch (in order: the last is the newest); their uids in that order. */
  async function attest(key: string, items: Item[]): Promise<string[]> {
    const res = await call(service.url, 'POST', '/v1/attestations/batch', {
      key,
      body: { attestations: items.map((i) => ({ ...i, contentType: 'text/plain' })) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.attestations.map((a: { uid: string }) => a.uid);
  }
  const offchain = (n: number, type: Item['type'] = 'human'): Item[] =>
    Array.from({ length: n }, (_, i) => ({ type, mode: 'offchain', content: `item ${i} ${Math.random()}` }));

  const list = (member: TestMember, input: Record<string, unknown> = {}) =>
    trpc(service, 'dashboard.attestations.list', { cookie: member.cookie, accountId: member.accountId, input });
  async function uids(member: TestMember, input: Record<string, unknown> = {}): Promise<string[]> {
    const res = await list(member, input);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.result.data.data.map((a: { uid: string }) => a.uid);
  }
  /** Every page of a listing, walked by its cursors. */
  async function walk(member: TestMember, input: Record<string, unknown>): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const res = await list(member, { ...input, ...(cursor ? { cursor } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      pages.push(res.body.result.data.data.map((a: { uid: string }) => a.uid));
      cursor = res.body.result.data.nextCursor ?? undefined;
    } while (cursor);
    return pages;
  }
  const revoke = (member: TestMember, uid: string, reason?: string) =>
    trpc(service, 'dashboard.attestations.revoke', {
      cookie: member.cookie,
      accountId: member.accountId,
      mutation: true,
      input: { uid, ...(reason ? { reason } : {}) },
    });
  const revocationOf = async (uid: string) =>
    (
      await service.db.selectFrom('attestations').select(['revokedAt', 'revokeState']).where('uid', '=', uid).execute()
    )[0]!;
  const revokedEntries = (accountId: string) =>
    service.db
      .selectFrom('auditEntries')
      .select(['resource', 'actorKeyPrefix', 'details'])
      .where('accountId', '=', accountId)
      .where('action', '=', 'attestation.revoked')
      .orderBy('id')
      .$narrowType<{ details: any }>()
      .execute();

  it("lists the account's attestations newest first in keyset pages, each with its verify link", async () => {
    const viewer = await createMember(service, 'viewer');
    const created = await attest(await keyOf(viewer), offchain(7));
    const pages = await walk(viewer, { limit: 3 });
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual([...created].reverse());

    const first = (await list(viewer, { limit: 1 })).body.result.data;
    expect(first.data[0]).toEqual({
      uid: created[6],
      type: 'human',
      mode: 'offchain',
      status: 'confirmed',
      contentHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      contentType: 'text/plain',
      txHash: null,
      createdAt: expect.any(String),
      revokedAt: null,
      verifyUrl: `${service.config.verifyBaseUrl}/${created[6]}`,
    });
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(await uids(viewer)).toHaveLength(7); // 50 by default
  });

  it('filters by type, mode, revoked and content hash (with or without 0x, any case), and pages the filtered lists', async () => {
    const owner = await createMember(service, 'owner');
    const key = await keyOf(owner);
    const shared = `the same content ${Math.random()}`;
    const [h1, a1, h2, a2] = await attest(key, [
      { type: 'human', mode: 'offchain', content: shared },
      { type: 'ai', mode: 'offchain', content: shared },
      ...offchain(1, 'human'),
      ...offchain(1, 'ai'),
    ]);
    const [on1] = await attest(key, [{ type: 'ai', mode: 'onchain', content: `on ${Math.random()}` }]);
    const [h3, a3] = await attest(key, [...offchain(1, 'human'), ...offchain(1, 'ai')]);
    expect((await call(service.url, 'POST', `/v1/attestations/${a2}/revoke`, { key })).status).toBe(200);

    expect(await uids(owner, { type: 'ai' })).toEqual([a3, on1, a2, a1]);
    expect(await uids(owner, { type: 'human' })).toEqual([h3, h2, h1]);
    expect(await uids(owner, { mode: 'onchain' })).toEqual([on1]);
    expect(await uids(owner, { mode: 'offchain', type: 'ai' })).toEqual([a3, a2, a1]);
    expect(await uids(owner, { revoked: true })).toEqual([a2]);
    expect(await uids(owner, { revoked: true, type: 'human' })).toEqual([]);
    expect(await uids(owner, { revoked: false, type: 'ai' })).toEqual([a3, on1, a1]);
    expect(await uids(owner, { revoked: false })).toEqual([a3, h3, on1, h2, a1, h1]);
    expect(await uids(owner)).toEqual([a3, h3, on1, a2, h2, a1, h1]);

    const hash = hashContent(shared);
    expect(await uids(owner, { contentHash: hash })).toEqual([a1, h1]);
    expect(await uids(owner, { contentHash: hash.slice(2).toUpperCase() })).toEqual([a1, h1]);
    expect(await uids(owner, { contentHash: hash, type: 'human' })).toEqual([h1]);
    expect(await uids(owner, { contentHash: `0x${'00'.repeat(32)}` })).toEqual([]);

    expect(await walk(owner, { type: 'ai', limit: 3 })).toEqual([[a3, on1, a2], [a1]]);
    expect(await walk(owner, { mode: 'offchain', limit: 2 })).toEqual([
      [a3, h3],
      [a2, h2],
      [a1, h1],
    ]);
    expect(await walk(owner, { contentHash: hash, limit: 1 })).toEqual([[a1], [h1]]);
    const revoked = (await list(owner, { revoked: true })).body.result.data.data[0];
    expect(revoked).toMatchObject({ uid: a2, revokedAt: expect.any(String) });
  }, 60_000);

  it('refuses cursors it did not issue and malformed filters with 400 VALIDATION_FAILED, never 500', async () => {
    const viewer = await createMember(service, 'viewer');
    await attest(await keyOf(viewer), offchain(2));
    const issued = (await list(viewer, { limit: 1 })).body.result.data.nextCursor as string;
    const encode = (text: string) => Buffer.from(text).toString('base64url');
    const bad = [
      'not-a-cursor',
      `${issued}=`,
      `${issued}!`,
      encode('id:0'),
      encode('id:-1'),
      encode('id:9223372036854775808'),
      encode('id:01'),
      encode('id:1 '),
      encode(`2026-01-01T00:00:00.000Z|1`),
      'A'.repeat(200),
    ];
    for (const cursor of bad) {
      const res = await list(viewer, { cursor });
      expect(res.status, cursor).toBe(400);
      expect(res.body.error.data).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: { errors: [{ path: 'cursor' }] },
      });
    }
    expect((await list(viewer, { cursor: encode('id:9223372036854775807') })).status).toBe(200);
    for (const input of [
      { contentHash: '0x1234' },
      { type: 'robot' },
      { limit: 101 },
      { limit: 0 },
      { cursor: 'x'.repeat(201) },
      { revoked: 'yes' },
      { unknown: 1 },
      { cursor: 'a\u0000b' },
    ]) {
      const res = await list(viewer, input);
      expect(res.status, JSON.stringify(input)).toBe(400);
      expect(res.body.error.data.code).toBe('VALIDATION_FAILED');
    }
  });

  it('revokes on-chain and off-chain attestations for an admin: on the chain, audited naming the member, with the API’s event', async () => {
    const admin = await createMember(service, 'admin');
    const key = await keyOf(admin);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const subscribed = await call(service.url, 'POST', '/v1/webhooks', {
      key,
      body: { url: receiver.url, events: ['attestation.revoked'] },
    });
    expect(subscribed.status).toBe(201);
    // on-chain items of a batch are stored first: newest first, these are byApi, offchainUid, onchainUid
    const [onchainUid, offchainUid, byApi] = await attest(key, [
      { type: 'human', mode: 'onchain', content: `on ${Math.random()}` },
      ...offchain(2),
    ]);

    const onchain = await revoke(admin, onchainUid!, 'published by mistake');
    expect(onchain.status, JSON.stringify(onchain.body)).toBe(200);
    expect(onchain.body.result.data).toEqual({ uid: onchainUid, status: 'revoked', revokedAt: expect.any(String) });
    expect((await eas.getAttestation(onchainUid!)).revocationTime).toBeGreaterThan(0n);
    const offchainRes = await revoke(admin, offchainUid!.toUpperCase().replace('0X', '0x'));
    expect(offchainRes.body.result.data).toMatchObject({ uid: offchainUid, status: 'revoked' });
    const record = (await call(service.url, 'GET', `/v1/attestations/${offchainUid}`)).body;
    expect(record).toMatchObject({ revoked: true, revokedAt: offchainRes.body.result.data.revokedAt });
    expect(await eas.getRevocationOffchain(record.offchain.signer, offchainUid!)).toBeGreaterThan(0n);
    expect((await call(service.url, 'POST', `/v1/attestations/${byApi}/revoke`, { key })).status).toBe(200);

    const actor = { type: 'member', email: admin.email, userId: admin.userId, role: 'admin' };
    const entries = await revokedEntries(admin.accountId);
    expect(entries).toEqual([
      {
        resource: `attestation:${onchainUid}`,
        actorKeyPrefix: null,
        details: { mode: 'onchain', txHash: expect.any(String), reason: 'published by mistake', actor },
      },
      {
        resource: `attestation:${offchainUid}`,
        actorKeyPrefix: null,
        details: { mode: 'offchain', txHash: expect.any(String), actor },
      },
      {
        resource: `attestation:${byApi}`,
        actorKeyPrefix: expect.any(String),
        details: expect.not.objectContaining({ actor }),
      },
    ]);

    // the same event as the API's revoke, whoever revoked
    const events = (await receiver.waitFor(3, 30_000)).map((r) => JSON.parse(r.body));
    const byUid = new Map(events.map((e) => [e.data.uid, e]));
    for (const uid of [onchainUid, offchainUid, byApi]) {
      expect(byUid.get(uid)).toMatchObject({ type: 'attestation.revoked', data: { uid, revoked: true } });
      expect(Object.keys(byUid.get(uid).data).sort()).toEqual(Object.keys(byUid.get(byApi).data).sort());
    }

    const again = await revoke(admin, onchainUid!);
    expect(again.status).toBe(409);
    expect(again.body.error.data).toMatchObject({ code: 'ALREADY_REVOKED', details: { uid: onchainUid } });
    expect((await revoke(admin, `0x${'ab'.repeat(32)}`)).status).toBe(404);
    expect(await uids(admin, { revoked: true })).toEqual([byApi, offchainUid, onchainUid]);
  }, 90_000);

  it("refuses a viewer's and a developer's revoke with 403 FORBIDDEN and changes nothing", async () => {
    const owner = await createMember(service, 'owner');
    const [uid] = await attest(await keyOf(owner), offchain(1));
    for (const role of ['viewer', 'developer'] as const) {
      const member = await createMember(service, role, owner.accountId);
      const res = await revoke(member, uid!);
      expect(res.status).toBe(403);
      expect(res.body.error.data).toMatchObject({ code: 'FORBIDDEN', details: { role, needed: 'admin' } });
      expect(await uids(member)).toEqual([uid]);
    }
    expect(await revocationOf(uid!)).toEqual({ revokedAt: null, revokeState: null });
    expect(await revokedEntries(owner.accountId)).toEqual([]);
  });

  it("gives a member of account A nothing of account B: not listed, not revocable (404), B's untouched", async () => {
    const a = await createMember(service, 'owner');
    const b = await createMember(service, 'owner');
    const [mine] = await attest(await keyOf(a), offchain(1));
    const [theirs] = await attest(await keyOf(b), offchain(1));
    expect(await uids(a)).toEqual([mine]);
    const hash = (await list(b)).body.result.data.data[0].contentHash;
    expect(await uids(a, { contentHash: hash })).toEqual([]);

    const res = await revoke(a, theirs!);
    expect(res.status).toBe(404);
    expect(res.body.error.data.code).toBe('NOT_FOUND');
    const named = await trpc(service, 'dashboard.attestations.list', { cookie: a.cookie, accountId: b.accountId });
    expect(named.status).toBe(404);
    const namedRevoke = await trpc(service, 'dashboard.attestations.revoke', {
      cookie: a.cookie,
      accountId: b.accountId,
      mutation: true,
      input: { uid: theirs },
    });
    expect(namedRevoke.status).toBe(404);
    expect(await revocationOf(theirs!)).toEqual({ revokedAt: null, revokeState: null });
    expect(await revokedEntries(b.accountId)).toEqual([]);
  });
});
