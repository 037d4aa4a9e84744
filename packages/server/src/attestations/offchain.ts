import { randomBytes } from 'node:crypto';
import {
  OFFCHAIN_ATTEST_TYPES,
  offchainUid,
  type OffchainAttestFields,
  type OffchainDomain,
} from '@attestation-service/protocol';
import { bytesToHex, hexToBytes, parseSignature, zeroAddress, zeroHash, type Hex, type LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AppError } from '../errors.ts';
import { digestSigner } from './ecdsa.ts';
import { attestDigester } from './eip712.ts';
import { keccak256 } from '../chain/keccak.ts';

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

/** Salts drawn from the CSPRNG 128 at a time: one call per salt cost a create about 2 µs of its CPU. */
const SALTS_PER_DRAW = 128;
let salts = Buffer.alloc(0);
let saltAt = 0;

/** A fresh random 32-byte salt, as hex; each used once. */
function freshSalt(): Hex {
  if (saltAt === salts.length) {
    salts = randomBytes(32 * SALTS_PER_DRAW);
    saltAt = 0;
  }
  const salt = salts.toString('hex', saltAt, saltAt + 32);
  saltAt += 32;
  return `0x${salt}`;
}

/** The fields of a new attestation of `data` at `timeSeconds`, with a fresh salt. */
function attestFields(schemaUid: Hex, data: Hex, timeSeconds: number, refUid: Hex = zeroHash): OffchainAttestFields {
  return {
    schema: schemaUid,
    recipient: zeroAddress as Hex,
    time: BigInt(timeSeconds),
    expirationTime: 0n,
    revocable: true,
    refUID: refUid,
    data,
    salt: freshSalt(),
  };
}

/** The package of signed fields, as the EAS SDK shapes it (JSON-safe: uint64s as decimal strings). */
export function offchainPackage(
  fields: OffchainAttestFields,
  signature: { v: number; r: Hex; s: Hex },
  domain: OffchainDomain,
  signer: Hex,
): OffchainPackage {
  return {
    sig: {
      version: 2,
      uid: offchainUid(fields, keccak256),
      domain,
      primaryType: 'Attest',
      types: { Attest: OFFCHAIN_ATTEST_TYPES.Attest.map((field) => ({ ...field })) },
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
        .signTypedData({ domain, types: OFFCHAIN_ATTEST_TYPES, primaryType: 'Attest', message })
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
