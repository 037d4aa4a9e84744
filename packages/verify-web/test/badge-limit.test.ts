import { clientNetworkOf } from '@attestation-service/server';
import { memoryWindowStore } from '@attestation-service/server/testing';
import { describe, expect, it } from 'vitest';
import { createBadgeLimiter } from '../src/http/limit.ts';

describe('the badge limit', () => {
  it("counts an IPv6 client by the network the service's rule names, an IPv4 client by its address", async () => {
    const limit = createBadgeLimiter(
      memoryWindowStore(),
      3,
      () => 1_000_000,
      (ip) => clientNetworkOf(ip, 64),
    );
    const verdicts = [];
    for (let i = 1; i <= 4; i++) verdicts.push((await limit(`2001:db8:5:1::${i}`)).allowed);
    expect(verdicts).toEqual([true, true, true, false]);
    expect((await limit('2001:db8:5:2::1')).allowed).toBe(true);
    for (let i = 1; i <= 3; i++) expect((await limit(`198.51.100.${i}`)).allowed).toBe(true);
    expect((await limit('198.51.100.4')).allowed).toBe(true);
  });

  it('keys by the address itself when given no rule', async () => {
    const limit = createBadgeLimiter(memoryWindowStore(), 1, () => 1_000_000);
    expect((await limit('2001:db8:6:1::1')).allowed).toBe(true);
    expect((await limit('2001:db8:6:1::2')).allowed).toBe(true);
  });
});
