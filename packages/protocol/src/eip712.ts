/*
 * The EIP-712 side of EAS, written once: the typed-data tables and the domains that off-chain attestations and
 * delegated (on-chain) requests are signed under. The service signs and checks with them, the SDK signs and verifies
 * with them, the verification app recovers with them: a package never brings types of its own.
 */

export type Hex = `0x${string}`;

/** An EIP-712 struct field. */
export interface TypedField {
  readonly name: string;
  readonly type: string;
}

/** The version of EAS off-chain attestations written and read here (the EAS SDK's OFFCHAIN_ATTESTATION_TYPES[2]). */
export const OFFCHAIN_VERSION = 2;

/** An EAS off-chain attestation, version 2. */
export const OFFCHAIN_ATTEST_TYPES = {
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

/** EAS's delegated `Attest` request (EIP712Verifier of EAS 1.4: the attester is part of what is signed). */
export const DELEGATED_ATTEST_TYPES = {
  Attest: [
    { name: 'attester', type: 'address' },
    { name: 'schema', type: 'bytes32' },
    { name: 'recipient', type: 'address' },
    { name: 'expirationTime', type: 'uint64' },
    { name: 'revocable', type: 'bool' },
    { name: 'refUID', type: 'bytes32' },
    { name: 'data', type: 'bytes' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint64' },
  ],
} as const;

/** The EIP-712 domain name of off-chain attestations (the EAS SDK's `EIP712_NAME`). */
export const OFFCHAIN_DOMAIN_NAME = 'EAS Attestation';
/** The EIP-712 domain name EAS verifies delegated requests under (its EIP712Verifier's). */
export const DELEGATED_DOMAIN_NAME = 'EAS';

/** An EAS EIP-712 domain: its name, the contract's version (`version()`), the chain and the contract. */
export interface EasDomain<Name extends string = string> {
  name: Name;
  version: string;
  chainId: number;
  verifyingContract: Hex;
}

export type OffchainDomain = EasDomain<typeof OFFCHAIN_DOMAIN_NAME>;
export type DelegatedDomain = EasDomain<typeof DELEGATED_DOMAIN_NAME>;

/** The EIP712Domain fields both domains have, in order. */
export const EAS_DOMAIN_TYPES = {
  EIP712Domain: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ],
} as const;

/** EIP-712's `encodeType` of a struct that refers to no other: `Attest(uint16 version,bytes32 schema,…)`. */
export function encodeType(name: string, fields: readonly TypedField[]): string {
  return `${name}(${fields.map((field) => `${field.type} ${field.name}`).join(',')})`;
}

/** The fields of an off-chain attestation that its uid and signature cover (its `version` is always 2). */
export interface OffchainAttestFields {
  schema: Hex;
  recipient: Hex;
  time: bigint;
  expirationTime: bigint;
  revocable: boolean;
  refUID: Hex;
  data: Hex;
  salt: Hex;
}
