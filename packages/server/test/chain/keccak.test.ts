import { randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3';
import { describe, expect, it } from 'vitest';
import { keccak256, keccakImplementation } from '../../src/chain/keccak.ts';

describe('Keccak-256', () => {
  it("is OpenSSL's on this Node", () => {
    expect(keccakImplementation).toBe('OpenSSL');
  });

  it('gives what @noble/hashes gives, for empty input, every length around the 136-byte rate, and long input', () => {
    expect(Buffer.from(keccak256(new Uint8Array())).toString('hex')).toBe(
      'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
    const lengths = [1, 31, 32, 33, 64, 66, 135, 136, 137, 271, 272, 273, 320, 4096, 100_000];
    for (const length of lengths) {
      const bytes = new Uint8Array(randomBytes(length));
      expect(Buffer.from(keccak256(bytes)).equals(Buffer.from(keccak_256(bytes))), `${length} bytes`).toBe(true);
    }
  });
});
