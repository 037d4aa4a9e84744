import { describe, expect, it } from 'vitest';
import { boundedPasswordHashing, turns } from '../../src/dashboard/password-hashing.ts';

describe('turns', () => {
  it('runs at most `slots` at a time, the others in order, and passes on a failed one’s slot', async () => {
    const inTurn = turns(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const job = (n: number) =>
      inTurn(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 10));
        running--;
        order.push(n);
        if (n === 1) throw new Error('one fails');
        return n;
      });
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map(job));
    expect(most).toBe(2);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(order.slice(2)).toEqual([3, 4, 5]);
  });
});

describe('boundedPasswordHashing', () => {
  it('hashes and verifies as better-auth does', async () => {
    const hashing = boundedPasswordHashing(1);
    const [a, b] = await Promise.all([hashing.hash('correct horse'), hashing.hash('battery staple')]);
    expect(await hashing.verify({ hash: a, password: 'correct horse' })).toBe(true);
    expect(await hashing.verify({ hash: b, password: 'correct horse' })).toBe(false);
  });
});
