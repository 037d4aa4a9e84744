import { randomBytes, randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AnswerSlabs, type PlacedAnswer } from '../../src/attestations/answer-slabs.ts';

const SLAB = 256 * 1024;

/** A text of `length` UTF-8 bytes, with a multi-byte character where it fits, unlike any other. */
const textOf = (length: number) => {
  const tail = randomBytes(Math.ceil(length / 2)).toString('hex');
  return length >= 3 ? `€${tail}`.slice(0, length - 2) : tail.slice(0, length);
};

describe('answer slabs', () => {
  it('places answers one after another in one slab, each its own bytes', () => {
    const slabs = new AnswerSlabs();
    const texts = ['{"a":1}', textOf(2500), textOf(5000)];
    const placed = texts.map((text) => slabs.place(text));
    expect(placed.map((p) => p.bytes.toString())).toEqual(texts);
    expect(new Set(placed.map((p) => p.bytes.buffer)).size).toBe(1);
    expect(slabs.bytes).toBe(SLAB);
  });

  it('gives an answer over a quarter slab memory of its own, and frees it with the answer', () => {
    const slabs = new AnswerSlabs();
    const big = slabs.place(textOf(SLAB / 4 + 1));
    expect(big.bytes.length).toBe(SLAB / 4 + 1);
    expect(slabs.bytes).toBe(SLAB / 4 + 1);
    slabs.release(big);
    expect(slabs.bytes).toBe(0);
  });

  it('drops a slab once every answer in it is released, but keeps the one being filled', () => {
    const slabs = new AnswerSlabs();
    const first = Array.from({ length: 100 }, () => slabs.place(textOf(2500))); // 250,000 bytes: one slab
    const second = slabs.place(textOf(20_000)); // does not fit: a second slab
    expect(slabs.bytes).toBe(2 * SLAB);
    for (const placed of first) slabs.release(placed);
    expect(slabs.bytes).toBe(SLAB);
    slabs.release(second);
    expect(slabs.bytes).toBe(SLAB);
  });

  it('keeps slabs within a quarter over the live bytes (and two slabs) under churn, every answer intact', () => {
    const slabs = new AnswerSlabs();
    const live: Array<{ placed: PlacedAnswer; text: string }> = [];
    let liveBytes = 0;
    for (let step = 0; step < 40_000; step++) {
      // mostly small answers, some pages, the odd one of its own; held ones leave at random (an LRU's churn)
      if (live.length > 0 && (live.length > 3000 || Math.random() < 0.45)) {
        const at = randomInt(live.length);
        const { placed } = live[at]!;
        live[at] = live.at(-1)!;
        live.pop();
        liveBytes -= placed.bytes.length;
        slabs.release(placed);
      } else {
        const length = Math.random() < 0.01 ? SLAB / 2 : Math.random() < 0.2 ? 12_000 : 2000 + randomInt(1000);
        const text = textOf(length);
        const placed = slabs.place(text);
        live.push({ placed, text });
        liveBytes += placed.bytes.length;
      }
      if (slabs.bytes > 1.25 * liveBytes + 2 * SLAB) expect.fail(`${slabs.bytes} bytes for ${liveBytes} at ${step}`);
    }
    for (const { placed, text } of live) expect(placed.bytes.toString()).toBe(text);
    for (const { placed } of live) slabs.release(placed);
    expect(slabs.bytes).toBeLessThanOrEqual(SLAB);
  });

  it('leaves the bytes a response is sending as they were when a compaction moves their answer', () => {
    const slabs = new AnswerSlabs();
    const kept = slabs.place(textOf(3000));
    const sending = kept.bytes;
    const text = sending.toString();
    // five more slabs, each left with one answer: the slabs are over the bound, and the next answer placed
    // empties the sparsest into the one being filled
    const others = Array.from({ length: 500 }, () => slabs.place(textOf(3000)));
    for (const [i, placed] of others.entries()) if (i % 87 !== 86) slabs.release(placed);
    slabs.place(textOf(3000));
    expect(kept.bytes.buffer).not.toBe(sending.buffer); // moved
    expect(sending.toString()).toBe(text);
    expect(kept.bytes.toString()).toBe(text);
  });
});
