// The assets the Content Credentials bench signs, grown from the test fixtures in pure JS (no encoder needed): each is
// a valid file of its type that c2pa-rs reads, hashes and rewrites whole, as it would a photo or a video of that size.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(import.meta.dirname, '../test/fixtures/c2pa');

/** The JPEG fixture grown to `size` bytes by comment (COM) segments, 64 KiB at most each. */
export function jpegOf(size: number): Uint8Array {
  const small = readFileSync(join(FIXTURES, 'asset.jpg'));
  const out = new Uint8Array(size);
  out.set(small.subarray(0, 2)); // SOI
  let offset = 2;
  let left = size - small.length;
  while (left > 0) {
    const length = Math.min(65_535, left - 2); // the length field counts itself, not the marker
    if (length < 2) throw new Error(`no JPEG of exactly ${size} bytes from these segments`);
    out.set([0xff, 0xfe, length >> 8, length & 0xff], offset);
    offset += 2 + length;
    left -= 2 + length;
  }
  out.set(small.subarray(2), offset);
  return out;
}

/** The MP4 fixture grown to `size` bytes by a `free` box (ISO BMFF's padding). */
export function mp4Of(size: number): Uint8Array {
  const small = readFileSync(join(FIXTURES, 'asset.mp4'));
  const out = new Uint8Array(size);
  out.set(small);
  const free = size - small.length;
  new DataView(out.buffer).setUint32(small.length, free);
  out.set(Buffer.from('free', 'latin1'), small.length + 4);
  return out;
}
