import { gzipSync } from 'node:zlib';

/**
 * Entries per status list: W3C's Bitstring Status List asks for at least 131,072 (16 KB), so one list hides which of
 * many credentials a verifier asks about.
 */
export const STATUS_LIST_SIZE = 131_072;

/**
 * An attestation's place in the status lists: its row id, never reused (a sequence), split into a list and an index.
 * Nothing is allocated at create: the id is the index, given by the insert (docs/decisions.md, "Status lists").
 */
export function statusEntryOf(id: bigint): { list: bigint; index: number } {
  const size = BigInt(STATUS_LIST_SIZE);
  return { list: id / size, index: Number(id % size) };
}

/** The list's bits (index 0 is the first byte's most significant bit), GZIP-compressed, as multibase base64url. */
export function encodeStatusList(setIndexes: Iterable<number>): string {
  const bits = Buffer.alloc(STATUS_LIST_SIZE / 8);
  for (const index of setIndexes) bits[index >> 3]! |= 0x80 >> (index & 7);
  return `u${gzipSync(bits).toString('base64url')}`;
}

/** The bit at `index` of an encoded list (for verifiers, the SDK and tests). */
export function statusBitOf(encodedList: string, index: number, inflate: (gz: Buffer) => Buffer): boolean {
  if (!encodedList.startsWith('u')) throw new Error('encodedList is not multibase base64url (prefix u)');
  const bits = inflate(Buffer.from(encodedList.slice(1), 'base64url'));
  return ((bits[index >> 3] ?? 0) & (0x80 >> (index & 7))) !== 0;
}
