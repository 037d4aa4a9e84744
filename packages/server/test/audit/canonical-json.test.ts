import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, entryHash, GENESIS_HASH } from '../../src/audit/chain.ts';

// The chain's hashes are over this text, so its form is pinned here: a faster build must write the same bytes.
describe('canonical JSON of audit entries', () => {
  it('sorts keys at every depth by UTF-16 code units and leaves out undefined fields', () => {
    const value = {
      b: 1,
      a: [1, { z: undefined, y: 'é\u2028"' }],
      Ä: null,
      B: { c: [] },
      10: true,
      9: 'nine',
      x: undefined,
    };
    expect(canonicalJson(value)).toBe('{"10":true,"9":"nine","B":{"c":[]},"a":[1,{"y":"é\u2028\\""}],"b":1,"Ä":null}');
  });

  it('writes what JSON cannot hold as JSON.stringify and join do: empty in arrays, undefined in objects', () => {
    expect(canonicalJson([undefined, null, () => 1, 'a'])).toBe('[,null,,"a"]');
    expect(canonicalJson({ f: () => 1 })).toBe('{"f":undefined}');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson('x')).toBe('"x"');
  });

  it('hashes an entry over the previous hash and its canonical text, the time in ISO 8601 with milliseconds', () => {
    const at = new Date('2026-11-29T12:00:00.123Z');
    const fields = {
      accountId: '6f1c2d3e-0000-4000-8000-000000000001',
      at,
      action: 'attestation.created',
      actorKeyPrefix: 'abcdef123456',
      resource: `attestation:0x${'a'.repeat(64)}`,
      outcome: 'success' as const,
      ip: '203.0.113.7',
      requestId: 'req-1',
      details: { type: 'human', mode: 'offchain' },
    };
    const text =
      '{"accountId":"6f1c2d3e-0000-4000-8000-000000000001","action":"attestation.created",' +
      `"actorKeyPrefix":"abcdef123456","at":"2026-11-29T12:00:00.123Z","details":{"mode":"offchain","type":"human"},` +
      `"ip":"203.0.113.7","outcome":"success","requestId":"req-1","resource":"attestation:0x${'a'.repeat(64)}"}`;
    const expected = createHash('sha256').update(`${GENESIS_HASH}\n${text}`).digest('hex');
    expect(entryHash(GENESIS_HASH, fields)).toBe(expected);
  });
});
