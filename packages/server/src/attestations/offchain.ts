import { randomBytes } from 'node:crypto';
import { encodePacked, keccak256, toHex, zeroAddress, zeroHash, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

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
 * The off-chain UID exactly as the EAS SDK computes it for version 2: note that the schema goes in as the UTF-8
 * bytes of its hex string, not as 32 raw bytes.
 */
export function offchainUid(m: { schema: Hex; recipient: Hex; time: bigint; expirationTime: bigint; revocable: boolean; refUID: Hex; data: Hex; salt: Hex }): Hex {
  return keccak256(
    encodePacked(
      ['uint16', 'bytes', 'address', 'address', 'uint64', 'uint64', 'bool', 'bytes32', 'bytes', 'bytes32', 'uint32'],
      [2, toHex(m.schema), m.recipient, zeroAddress, m.time, m.expirationTime, m.revocable, m.refUID, m.data, m.salt, 0],
    ),
  );
}

export type OffchainSigner = ReturnType<typeof createOffchainSigner>;

/** Signs EAS v2 off-chain attestations with the service's attester key. */
export function createOffchainSigner(opts: { privateKey: Hex; domain: OffchainDomain; schemaUid: Hex }) {
  const account = privateKeyToAccount(opts.privateKey);
  return {
    address: account.address,
    domain: opts.domain,
    async sign(data: Hex, timeSeconds: number): Promise<OffchainPackage> {
      const salt = toHex(randomBytes(32));
      const fields = {
        schema: opts.schemaUid,
        recipient: zeroAddress as Hex,
        time: BigInt(timeSeconds),
        expirationTime: 0n,
        revocable: true,
        refUID: zeroHash as Hex,
        data,
        salt,
      };
      const signature = await account.signTypedData({
        domain: opts.domain,
        types: OFFCHAIN_TYPES,
        primaryType: 'Attest',
        message: { version: 2, ...fields },
      });
      const r = signature.slice(0, 66) as Hex;
      const s = `0x${signature.slice(66, 130)}` as Hex;
      const v = Number.parseInt(signature.slice(130, 132), 16);
      return {
        sig: {
          version: 2,
          uid: offchainUid(fields),
          domain: opts.domain,
          primaryType: 'Attest',
          types: { Attest: OFFCHAIN_TYPES.Attest.map((field) => ({ ...field })) },
          message: { version: 2, ...fields, time: String(fields.time), expirationTime: '0' },
          signature: { v, r, s },
        },
        signer: account.address,
      };
    },
  };
}
