import {
  EAS_DOMAIN_TYPES,
  encodeType,
  OFFCHAIN_ATTEST_TYPES,
  type OffchainAttestFields,
  type OffchainDomain,
} from '@attestation-service/protocol';
import { hashDomain, hexToBytes } from 'viem';
import { keccak256 } from '../chain/keccak.ts';

const ATTEST_TYPE_HASH = keccak256(new TextEncoder().encode(encodeType('Attest', OFFCHAIN_ATTEST_TYPES.Attest)));

function word(out: Uint8Array, index: number, bytes: Uint8Array): void {
  out.set(bytes, index * 32 + (32 - bytes.length));
}

function uint(out: Uint8Array, index: number, value: bigint): void {
  for (let i = 0, v = value; v > 0n; i++, v >>= 8n) out[index * 32 + 31 - i] = Number(v & 0xffn);
}

/**
 * The EIP-712 digest of an EAS v2 `Attest` message, with the domain separator computed once. Equal to viem's
 * `hashTypedData` for these types (test/attestations/eip712.test.ts), at a fraction of the cost.
 */
export function attestDigester(domain: OffchainDomain): (message: OffchainAttestFields) => Uint8Array {
  const domainSeparator = hexToBytes(
    hashDomain({ domain: { ...domain, chainId: BigInt(domain.chainId) }, types: EAS_DOMAIN_TYPES }),
  );
  return (m) => {
    const encoded = new Uint8Array(320);
    word(encoded, 0, ATTEST_TYPE_HASH);
    uint(encoded, 1, 2n);
    word(encoded, 2, hexToBytes(m.schema));
    word(encoded, 3, hexToBytes(m.recipient));
    uint(encoded, 4, m.time);
    uint(encoded, 5, m.expirationTime);
    uint(encoded, 6, m.revocable ? 1n : 0n);
    word(encoded, 7, hexToBytes(m.refUID));
    word(encoded, 8, keccak256(hexToBytes(m.data)));
    word(encoded, 9, hexToBytes(m.salt));
    const structHash = keccak256(encoded);
    const payload = new Uint8Array(66);
    payload[0] = 0x19;
    payload[1] = 0x01;
    payload.set(domainSeparator, 2);
    payload.set(structHash, 34);
    return keccak256(payload);
  };
}
