import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { batched, isOutage } from '../../src/db/group-commit.ts';
import { waitFor } from '../support/wait.ts';

/** A run that records its groups, answers each input doubled, and fails any group holding a "bad" input. */
function recordingRun(opts: { bad?: Set<number>; delayMs?: number } = {}) {
  const groups: number[][] = [];
  let inFlight = 0;
  let maxSeen = 0;
  const run = async (inputs: number[]) => {
    groups.push(inputs);
    inFlight++;
    maxSeen = Math.max(maxSeen, inFlight);
    await new Promise((resolve) => setTimeout(resolve, opts.delayMs ?? 1)); // on purpose: a run that takes time
    inFlight--;
    if (inputs.some((i) => opts.bad?.has(i))) throw new Error(`group of ${inputs.length} failed`);
    return inputs.map((i) => i * 2);
  };
  return { run, groups, maxInFlight: () => maxSeen };
}

const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'connect' });
const settle = <T>(promises: Array<Promise<T>>) => Promise.allSettled(promises);

describe('batched()', () => {
  it('serves calls of one turn with one run, each caller getting its own answer in order', async () => {
    const { run, groups } = recordingRun();
    const double = batched(run);
    await expect(Promise.all([1, 2, 3, 4].map(double))).resolves.toEqual([2, 4, 6, 8]);
    expect(groups).toEqual([[1, 2, 3, 4]]);
  });

  it('when a group fails, runs each member alone: only the member at fault gets the error', async () => {
    const { run, groups } = recordingRun({ bad: new Set([3]) });
    const double = batched(run);
    const results = await settle([1, 2, 3, 4, 5].map(double));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([2, 4, 'failed', 8, 10]);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ message: 'group of 1 failed' });
    expect(groups).toEqual([[1, 2, 3, 4, 5], [1], [2], [3], [4], [5]]);
  });

  it('a member alone that fails gets its error at once (no retry of a group of one)', async () => {
    const { run, groups } = recordingRun({ bad: new Set([7]) });
    const double = batched(run);
    await expect(double(7)).rejects.toThrow('group of 1 failed');
    expect(groups).toEqual([[7]]);
  });

  it('keeps maxInFlight while retrying members alone, and newcomers wait behind them', async () => {
    const { run, groups, maxInFlight } = recordingRun({ bad: new Set([2]), delayMs: 5 });
    const double = batched(run, { maxInFlight: 1, maxBatch: 3 });
    const first = settle([1, 2, 3, 4].map(double));
    await waitFor(() => groups.length > 0, { interval: 1, what: 'the first group under way' });
    const later = settle([10, 11].map(double));
    const [a, b] = await Promise.all([first, later]);
    expect(a.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(b.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([20, 22]);
    expect(maxInFlight()).toBe(1);
    expect(groups).toEqual([[1, 2, 3], [1], [2], [3], [4, 10, 11]]);
  });

  it('logs a failed group once, with the error type and code only', async () => {
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const log = { warn: (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message }) };
    const failing = async (inputs: number[]) => {
      const error = Object.assign(new Error('SELECT secret FROM t'), { code: '22P02' });
      if (inputs.length > 1 || inputs[0] === 1) throw error;
      return inputs;
    };
    const call = batched(failing, { name: 'test reads', log: log as never });
    await settle([1, 2, 3].map(call));
    const fields = { batch: 'test reads', size: 3, error: { type: 'Error', code: '22P02' } };
    expect(lines).toEqual([{ fields, message: expect.any(String) }]);
    expect(JSON.stringify(lines)).not.toContain('secret');
  });

  it('does not retry members one by one when the database itself is down: every member fails at once', async () => {
    let runs = 0;
    const down = async (): Promise<number[]> => {
      runs++;
      throw refused;
    };
    const call = batched(down);
    const results = await settle([1, 2, 3].map(call));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(runs).toBe(1);
  });
});

describe("isOutage (the failures that are nobody in particular's)", () => {
  const dbError = (code: string) => Object.assign(new pg.DatabaseError('x', 0, 'error'), { code });
  it.each([
    ['a lost connection (08006)', dbError('08006'), true],
    ['too many connections (53300)', dbError('53300'), true],
    ['a statement timeout (57014)', dbError('57014'), true],
    ['a refused socket', refused, true],
    ['the pool giving up', new Error('timeout exceeded when trying to connect'), true],
    ['a NUL byte in text (22021)', dbError('22021'), false],
    ['an out-of-range value (22003)', dbError('22003'), false],
    ['a trigger raising (P0001)', dbError('P0001'), false],
    ['a unique violation (23505)', dbError('23505'), false],
    ['a bug in mapping one row', new TypeError('x is undefined'), false],
  ])('%s', (_what, error, outage) => {
    expect(isOutage(error)).toBe(outage);
  });
});
