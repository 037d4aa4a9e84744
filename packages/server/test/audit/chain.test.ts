import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryHash, GENESIS_HASH, type AuditFields } from '../../src/audit/chain.ts';
import { call, startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.stop());

async function entriesOf(account: string) {
  return svc.db
    .selectFrom('auditEntries as e')
    .innerJoin('accounts as a', 'a.id', 'e.accountId')
    .selectAll('e')
    .where('a.name', '=', account)
    .orderBy('e.id')
    .execute();
}

describe('audit log', () => {
  it('records key creation and each attestation in a hash chain per account, without the content', async () => {
    const { key, prefix, account } = await svc.createKey('pro');
    const content = `audited content ${Math.random()}`;
    const uids: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await call(svc.url, 'POST', '/v1/attestations', {
          key,
          body: { type: 'human', content, contentType: 'text/plain', mode: 'offchain' },
          headers: { 'x-request-id': 'audit-req', 'x-forwarded-for': '203.0.113.7' },
        });
        uids.push(res.body.uid);
      }),
    );
    const rows = await entriesOf(account);
    expect(rows.map((r) => r.action)).toEqual(['api_key.created', ...Array(8).fill('attestation.created')]);
    expect(
      rows
        .slice(1)
        .map((r) => r.resource)
        .sort(),
    ).toEqual(uids.map((uid) => `attestation:${uid}`).sort());
    expect(rows[1]).toMatchObject({
      actorKeyPrefix: prefix,
      outcome: 'success',
      requestId: 'audit-req',
      ip: '203.0.113.7',
    });

    let prev = GENESIS_HASH;
    for (const row of rows) {
      expect(row.prevHash).toBe(prev);
      const fields = {
        accountId: row.accountId,
        at: row.at,
        action: row.action,
        actorKeyPrefix: row.actorKeyPrefix,
        resource: row.resource,
        outcome: row.outcome,
        ip: row.ip,
        requestId: row.requestId,
        details: row.details,
      } as AuditFields;
      expect(row.hash).toBe(entryHash(prev, fields));
      prev = row.hash;
    }
    expect(JSON.stringify(rows)).not.toContain(content);
  });

  it("keeps one account's chain apart from another's", async () => {
    const a = await svc.createKey('free');
    const b = await svc.createKey('free');
    const rowsA = await entriesOf(a.account);
    const rowsB = await entriesOf(b.account);
    expect(rowsA[0]!.prevHash).toBe(GENESIS_HASH);
    expect(rowsB[0]!.prevHash).toBe(GENESIS_HASH);
  });
});
