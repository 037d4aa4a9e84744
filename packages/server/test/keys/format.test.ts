import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatKey, generateKey, hashSecret, parseKey } from '../../src/keys/format.ts';

describe('API key format', () => {
  it('mints keys of the form svc_<tier>_<prefix12>_<secret32> that parse back', () => {
    for (const tier of ['free', 'pro', 'enterprise'] as const) {
      const minted = generateKey(tier);
      expect(minted.key).toMatch(/^svc_(free|pro|enterprise)_[0-9a-f]{12}_[0-9a-f]{32}$/);
      expect(parseKey(minted.key)).toEqual({ tier, prefix: minted.prefix, secret: minted.secret });
      expect(formatKey(minted)).toBe(minted.key);
    }
  });

  it('mints a different prefix and secret every time', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateKey('free').key));
    expect(keys.size).toBe(200);
  });

  it.each([
    ['empty', ''],
    ['wrong lead', 'sk_free_0123456789ab_0123456789abcdef0123456789abcdef'],
    ['unknown tier', 'svc_gold_0123456789ab_0123456789abcdef0123456789abcdef'],
    ['upper-case tier', 'svc_FREE_0123456789ab_0123456789abcdef0123456789abcdef'],
    ['upper-case hex', 'svc_free_0123456789AB_0123456789abcdef0123456789abcdef'],
    ['short prefix', 'svc_free_0123456789a_0123456789abcdef0123456789abcdef'],
    ['long secret', 'svc_free_0123456789ab_0123456789abcdef0123456789abcdef0'],
    ['non-hex', 'svc_free_0123456789ag_0123456789abcdef0123456789abcdef'],
    ['leading space', ' svc_free_0123456789ab_0123456789abcdef0123456789abcdef'],
    ['trailing newline', 'svc_free_0123456789ab_0123456789abcdef0123456789abcdef\n'],
  ])('rejects %s', (_, raw) => {
    expect(parseKey(raw)).toBeUndefined();
  });

  it('stores a 32-byte SHA-256 of the secret, never the secret', () => {
    const hash = hashSecret('0123456789abcdef0123456789abcdef');
    expect(hash).toHaveLength(32);
    expect(hash.toString('hex')).toBe(createHash('sha256').update('0123456789abcdef0123456789abcdef').digest('hex'));
  });
});
