import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { OFFCHAIN_VERSION, type Hex } from './eip712.ts';

/** The signed fields of an off-chain attestation, as held (bigints) or as JSON carries them (decimal strings). */
export interface OffchainUidFields {
  /** Always 2 (a package's message carries it); the uid packs OFFCHAIN_VERSION. */
  version?: typeof OFFCHAIN_VERSION;
  schema: string;
  recipient: string;
  time: bigint | number | string;
  expirationTime: bigint | number | string;
  revocable: boolean;
  refUID: string;
  data: string;
  salt: string;
}

/** The bytes of `0x` hex, of `size` bytes when given; throws on anything else (as an ABI encoder would). */
function bytesOf(value: string, name: string, size?: number): Uint8Array {
  if (typeof value !== 'string' || !value.startsWith('0x')) throw new TypeError(`${name} is not 0x-prefixed hex`);
  const bytes = hexToBytes(value.slice(2)); // throws on an odd length or a character that is not hex
  if (size !== undefined && bytes.length !== size) throw new TypeError(`${name} is not ${size} bytes`);
  return bytes;
}

function uintOf(value: bigint | number | string, name: string, size: number): bigint {
  const n = BigInt(value);
  if (n < 0n || n >= 1n << BigInt(8 * size)) throw new RangeError(`${name} is not a uint${8 * size}`);
  return n;
}

/**
 * An off-chain attestation's UID exactly as the EAS SDK's `getOffchainUID` computes it for version 2:
 * solidityPackedKeccak256 of version, schema, recipient, attester 0, time, expirationTime, revocable, refUID, data,
 * salt, 0 — the schema packed as the UTF-8 bytes of its hex text, not as its 32 bytes, as the EAS SDK does. Packed by
 * hand (viem's encodePacked was a third of the service's create CPU); fields that do not encode throw.
 */
export function offchainUid(
  m: OffchainUidFields,
  /** A faster Keccak-256 where the platform has one (the service's, from OpenSSL). */
  keccak: (bytes: Uint8Array) => Uint8Array = keccak_256,
): Hex {
  const schema = new TextEncoder().encode(m.schema);
  const recipient = bytesOf(m.recipient, 'recipient', 20);
  const refUID = bytesOf(m.refUID, 'refUID', 32);
  const data = bytesOf(m.data, 'data');
  const salt = bytesOf(m.salt, 'salt', 32);
  const time = uintOf(m.time, 'time', 8);
  const expirationTime = uintOf(m.expirationTime, 'expirationTime', 8);
  const out = new Uint8Array(2 + schema.length + 20 + 20 + 8 + 8 + 1 + 32 + data.length + 32 + 4);
  let at = 0;
  const put = (bytes: Uint8Array) => {
    out.set(bytes, at);
    at += bytes.length;
  };
  const putUint = (value: bigint, size: number) => {
    for (let i = size - 1; i >= 0; i--) out[at + size - 1 - i] = Number((value >> BigInt(8 * i)) & 0xffn);
    at += size;
  };
  putUint(BigInt(OFFCHAIN_VERSION), 2);
  put(schema);
  put(recipient);
  at += 20; // attester: the zero address
  putUint(time, 8);
  putUint(expirationTime, 8);
  putUint(m.revocable ? 1n : 0n, 1);
  put(refUID);
  put(data);
  put(salt);
  putUint(0n, 4);
  return `0x${bytesToHex(keccak(out))}`;
}
