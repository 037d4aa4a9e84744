/** Slabs of 256 KB: above the bin's mmap threshold, so each is a mapping of its own, returned whole when freed. */
const SLAB_BYTES = 256 * 1024;
/** An answer over a quarter slab gets memory of its own (a mapping too, at that size). */
const OWN_BYTES = SLAB_BYTES / 4;
/** Slab bytes allowed per byte of live answers, beyond the two slabs being filled and emptied, before compacting. */
const SLACK = 1.25;

interface Slab {
  buffer: Buffer;
  /** Bytes written: the next answer starts there (a slab is never written below it again). */
  used: number;
  /** Bytes of answers still placed in it. */
  live: number;
  placed: Set<PlacedAnswer>;
}

/** An answer's bytes and where they live; a compaction may move them (the object stays the same). */
export interface PlacedAnswer {
  bytes: Buffer;
  slab: Slab | undefined;
}

/**
 * Held answers' bytes, written one after another into slabs of our own rather than each in a `malloc` of its own.
 * Answers small enough for glibc's arenas, each held for minutes between short-lived allocations, kept freed memory
 * around them resident: a soak's API grew by 2 MB a round with answers held and stayed flat with none (BENCHMARKS.md,
 * "Memory"). A slab is a mapping of its own, unmapped once no answer is placed in it and no response still sends from
 * it; when slabs hold more than SLACK times their live bytes, the sparsest are emptied into the one being filled. So
 * what answers cost is their bytes and at most a quarter more, however they come and go.
 */
export class AnswerSlabs {
  #filling: Slab | undefined;
  readonly #slabs = new Set<Slab>();
  /** Bytes of answers placed in slabs. */
  #live = 0;
  /** Bytes of answers with memory of their own. */
  #own = 0;

  /** Bytes of memory the answers take: their slabs, and those with memory of their own. */
  get bytes(): number {
    return this.#slabs.size * SLAB_BYTES + this.#own;
  }

  /** `text` as UTF-8 bytes (`length` of them), placed until released. */
  place(text: string, length = Buffer.byteLength(text)): PlacedAnswer {
    if (length > OWN_BYTES) {
      const bytes = Buffer.allocUnsafeSlow(length);
      bytes.write(text);
      this.#own += length;
      return { bytes, slab: undefined };
    }
    const slab = this.#room(length);
    slab.buffer.write(text, slab.used);
    const placed = { bytes: slab.buffer.subarray(slab.used, slab.used + length), slab };
    this.#add(slab, placed);
    this.#compact();
    return placed;
  }

  /** The answer's bytes are no longer held (a response sending them keeps them until it is done). */
  release(placed: PlacedAnswer): void {
    const { slab } = placed;
    if (!slab) {
      this.#own -= placed.bytes.length;
      return;
    }
    slab.placed.delete(placed);
    slab.live -= placed.bytes.length;
    this.#live -= placed.bytes.length;
    if (slab.placed.size === 0 && slab !== this.#filling) this.#slabs.delete(slab);
    this.#compact();
  }

  #add(slab: Slab, placed: PlacedAnswer): void {
    slab.used += placed.bytes.length;
    slab.live += placed.bytes.length;
    slab.placed.add(placed);
    this.#live += placed.bytes.length;
  }

  /** The slab being filled, or a new one when `length` no longer fits in it. */
  #room(length: number): Slab {
    if (this.#filling && this.#filling.used + length <= SLAB_BYTES) return this.#filling;
    if (this.#filling?.placed.size === 0) this.#slabs.delete(this.#filling);
    this.#filling = { buffer: Buffer.allocUnsafeSlow(SLAB_BYTES), used: 0, live: 0, placed: new Set() };
    this.#slabs.add(this.#filling);
    return this.#filling;
  }

  /** Moves the answers of the sparsest slabs into the one being filled until the slabs are within SLACK. */
  #compact(): void {
    while (this.#slabs.size * SLAB_BYTES > SLACK * this.#live + 2 * SLAB_BYTES) {
      let sparsest: Slab | undefined;
      for (const slab of this.#slabs)
        if (slab !== this.#filling && (!sparsest || slab.live < sparsest.live)) sparsest = slab;
      if (!sparsest) return;
      this.#slabs.delete(sparsest);
      this.#live -= sparsest.live;
      for (const placed of sparsest.placed) {
        const to = this.#room(placed.bytes.length);
        placed.bytes.copy(to.buffer, to.used);
        placed.bytes = to.buffer.subarray(to.used, to.used + placed.bytes.length);
        placed.slab = to;
        this.#add(to, placed);
      }
    }
  }
}
