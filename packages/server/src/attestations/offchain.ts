import { randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, hexToBytes, parseSignature, zeroAddress, zeroHash, type Hex, type LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AppError } from '../errors.ts';
import { digestSigner } from './ecdsa.ts';
import { attestDigester } from './eip712.ts';

/** The EIP-712 types of an EAS off-chain attestation, version 2 (the SDK's OFFCHAIN_ATTESTATION_TYPES[2]). */
export const OFFCHAIN_TYPES = {
  Attest: [
    { name: 'version', type: 'uint16' },
    { name: 'schema', type: 'bytes32' },
    { name: 'recipient', type: 'address' },
    { name: 'time', type: 'uint64' },
    { name: 'expirationTime', type: 'uint64' },
    { name: 'revocable', type: 'bool' },
    { name: 'refUID', type: 'bytes32' },
    { name: 'data', type: 'bytes' },
    { name: 'salt', type: 'bytes32' },
  ],
} as const;

export interface OffchainDomain {
  name: 'EAS Attestation';
  version: string;
  chainId: number;
  verifyingContract: Hex;
}

/** The SDK's package shape `{ sig, signer }`, JSON-safe (uint64 fields as decimal strings). */
export interface OffchainPackage {
  sig: {
    version: 2;
    uid: Hex;
    domain: OffchainDomain;
    primaryType: 'Attest';
    types: { Attest: { name: string; type: string }[] };
    message: {
      version: 2;
      schema: Hex;
      recipient: Hex;
      time: string;
      expirationTime: string;
      revocable: boolean;
      refUID: Hex;
      data: Hex;
      salt: Hex;
    };
    signature: { v: number; r: Hex; s: Hex };
  };
  signer: Hex;
}

/**
 * The off-chain UID exactly as the EAS SDK computes it for version 2 (solidityPackedKeccak256 of version, schema,
 * recipient, attester 0, time, expirationTime, revocable, refUID, data, salt, 0) — the schema goes in as the UTF-8
 * bytes of its hex string, not as 32 raw bytes. Packed by hand: viem's encodePacked was a third of a create's CPU.
 */
export function offchainUid(m: {
  schema: Hex;
  recipient: Hex;
  time: bigint;
  expirationTime: bigint;
  revocable: boolean;
  refUID: Hex;
  data: Hex;
  salt: Hex;
}): Hex {
  const schema = new TextEncoder().encode(m.schema);
  const data = hexToBytes(m.data);
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
  putUint(2n, 2);
  put(schema);
  put(hexToBytes(m.recipient));
  at += 20; // attester: the zero address
  putUint(m.time, 8);
  putUint(m.expirationTime, 8);
  putUint(m.revocable ? 1n : 0n, 1);
  put(hexToBytes(m.refUID));
  put(data);
  put(hexToBytes(m.salt));
  putUint(0n, 4);
  return bytesToHex(keccak_256(out));
}

/** Signs EAS v2 off-chain attestations as the service's attester (synchronously with a key in the process). */
export interface OffchainSigner {
  address: Hex;
  domain: OffchainDomain;
  /**
   * `refUid`: the attestation it derives from, signed as its refUID (zero for none); `schemaUid`: another schema than
   * the claim's (the AI details, which name their claim by refUID).
   */
  sign(data: Hex, timeSeconds: number, refUid?: Hex, schemaUid?: Hex): OffchainPackage | Promise<OffchainPackage>;
}

/** The fields of a new attestation of `data` at `timeSeconds`, with a fresh salt. */
function attestFields(schemaUid: Hex, data: Hex, timeSeconds: number, refUid: Hex = zeroHash) {
  return {
    schema: schemaUid,
    recipient: zeroAddress as Hex,
    time: BigInt(timeSeconds),
    expirationTime: 0n,
    revocable: true,
    refUID: refUid,
    data,
    salt: bytesToHex(randomBytes(32)),
  };
}

function offchainPackage(
  fields: ReturnType<typeof attestFields>,
  signature: { v: number; r: Hex; s: Hex },
  domain: OffchainDomain,
  signer: Hex,
): OffchainPackage {
  return {
    sig: {
      version: 2,
      uid: offchainUid(fields),
      domain,
      primaryType: 'Attest',
      types: { Attest: OFFCHAIN_TYPES.Attest.map((field) => ({ ...field })) },
      message: { version: 2, ...fields, time: String(fields.time), expirationTime: '0' },
      signature,
    },
    signer,
  };
}

/** Signs with the attester key in this process: the digest computed by hand, at a fraction of viem's cost. */
export function createOffchainSigner(opts: { privateKey: Hex; domain: OffchainDomain; schemaUid: Hex }) {
  const account = privateKeyToAccount(opts.privateKey);
  const digest = attestDigester(opts.domain);
  const signDigest = digestSigner(hexToBytes(opts.privateKey));
  return {
    address: account.address,
    domain: opts.domain,
    sign(data: Hex, timeSeconds: number, refUid?: Hex, schemaUid = opts.schemaUid): OffchainPackage {
      const fields = attestFields(schemaUid, data, timeSeconds, refUid);
      const { signature, recovery } = signDigest(digest(fields));
      const r = bytesToHex(signature.subarray(0, 32));
      const s = bytesToHex(signature.subarray(32, 64));
      return offchainPackage(fields, { v: 27 + recovery, r, s }, opts.domain, account.address);
    },
  };
}

/**
 * Signs through the relayer's signer (`eth_signTypedData_v4`, the signature checked in chain/signer.ts): no key in
 * this process. A signer that does not answer makes the create answer 503.
 */
export function remoteOffchainSigner(opts: { account: LocalAccount; domain: OffchainDomain; schemaUid: Hex }) {
  const { account, domain } = opts;
  return {
    address: account.address,
    domain,
    async sign(data: Hex, timeSeconds: number, refUid?: Hex, schemaUid = opts.schemaUid): Promise<OffchainPackage> {
      const fields = attestFields(schemaUid, data, timeSeconds, refUid);
      const message = { version: 2, ...fields };
      const signed = await account
        .signTypedData({ domain, types: OFFCHAIN_TYPES, primaryType: 'Attest', message })
        .catch(() => {
          throw new AppError(
            'SERVICE_UNAVAILABLE',
            'The signer of off-chain attestations is unavailable; try again shortly',
          );
        });
      const { r, s, yParity } = parseSignature(signed);
      return offchainPackage(fields, { v: 27 + (yParity ?? 0), r, s }, domain, account.address);
    },
  };
}
