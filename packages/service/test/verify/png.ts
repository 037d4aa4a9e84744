import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A small PNG of random pixels (8×8, RGB): new bytes, so a new content hash, on each call. */
export function randomPng(): Buffer {
  const size = 8;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per sample, truecolour, no interlace
  const rows = Array.from({ length: size }, () => Buffer.concat([Buffer.from([0]), randomBytes(size * 3)]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The same PNG with one byte of its pixel data changed (its chunk's CRC left as it was). */
export function withPixelChanged(png: Uint8Array): Buffer {
  const copy = Buffer.from(png);
  const idat = copy.indexOf('IDAT', 8, 'latin1');
  copy[idat + 6]! ^= 0xff;
  return copy;
}
