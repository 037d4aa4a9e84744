import { recoverTypedDataAddress, type Hex } from 'viem';
import {
  AI_DETAILS_SCHEMA_UID,
  decodeAiDetails,
  decodeAttestationData,
  OFFCHAIN_ATTEST_TYPES,
  OFFCHAIN_DOMAIN_NAME,
  OFFCHAIN_VERSION,
  offchainUid,
} from '@attestation-service/protocol';
import type { AiDetails } from './ai-details.ts';
import type { Origin, OffchainPackage } from './types.ts';

export interface VerifyOffchainOptions {
  /**
   * The address that must have signed. Pass the one you trust (the service's attester, or the customer attester a
   * record's `claimant` names): the default, the package's own `signer`, only proves the package is self-consistent.
   */
  attester?: string;
  /** The uid the package must carry (a record's `uid`), so a package cannot stand in for another record's. */
  uid?: string;
  /**
   * The origin the package must name as its signed refUID (a record's `refUid`; null: none), so a record cannot
   * show another provenance than its attester signed. Unchecked when absent (the uid covers refUID either way).
   */
  refUid?: string | null;
  /**
   * A record's `ai`: its model and prompt hash must be what the AI-details attestation says, signed by the same
   * attester under the same domain with this package's uid as its refUID (a changed model fails). Unchecked when
   * absent or null.
   */
  ai?: Pick<AiDetails, 'model' | 'promptHash' | 'offchain'> | null;
  /** The chain and EAS contract the signature must be bound to (the EIP-712 domain); unchecked when absent. */
  chainId?: number;
  easAddress?: string;
  /** Now, in ms (default Date.now): an expired attestation is not valid. */
  now?: () => number;
}

export type OffchainFailure =
  | 'no_package'
  | 'malformed'
  | 'unsupported_version'
  | 'bad_signature'
  | 'wrong_attester'
  | 'uid_mismatch'
  | 'ref_mismatch'
  | 'ai_mismatch'
  | 'wrong_domain'
  | 'expired';

export type OffchainVerification =
  | {
      valid: true;
      /** The address the EIP-712 signature recovers to (checksummed). */
      attester: Hex;
      /** The uid recomputed from the signed fields, as EAS computes an off-chain attestation's. */
      uid: Hex;
      /** The signed time: the attester's word for when it signed, not a proof (an anchor is, see verifyAnchor). */
      time: Date;
      /** The chain and EAS contract of the signature's domain. */
      chainId: number;
      easAddress: Hex;
      schema: Hex;
      /** The attestation it derives from (its signed refUID); null when it names none. */
      refUid: Hex | null;
      /** What the service's schema (`bytes32 contentHash,bool aiGenerated`) says; null for data of another schema. */
      claim: { contentHash: Hex; type: Origin } | null;
      /** The signed AI details, when the `ai` option was given; else null. */
      ai: { model: string; promptHash: string | null } | null;
    }
  | { valid: false; reason: OffchainFailure; message: string };

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;
const UINT64 = /^\d{1,20}$/;

const failure = (reason: OffchainFailure, message: string): OffchainVerification => ({ valid: false, reason, message });
const sameHex = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** What in the package does not have its type's shape, if anything (a package is input from anywhere). */
function malformation(pkg: OffchainPackage): string | undefined {
  const { sig } = pkg;
  if (typeof sig !== 'object' || sig === null) return 'no sig';
  const { domain, message: m, signature } = sig;
  if (typeof domain !== 'object' || typeof m !== 'object' || typeof signature !== 'object') return 'missing fields';
  if (domain === null || m === null || signature === null) return 'missing fields';
  const bytes32 = { uid: sig.uid, schema: m.schema, refUID: m.refUID, salt: m.salt, r: signature.r, s: signature.s };
  for (const [name, value] of Object.entries(bytes32))
    if (typeof value !== 'string' || !BYTES32.test(value)) return `${name} is not 32 bytes of hex`;
  for (const [name, value] of Object.entries({ recipient: m.recipient, verifyingContract: domain.verifyingContract }))
    if (typeof value !== 'string' || !ADDRESS.test(value)) return `${name} is not an address`;
  if (typeof m.data !== 'string' || !HEX.test(m.data)) return 'data is not hex';
  for (const [name, value] of Object.entries({ time: m.time, expirationTime: m.expirationTime }))
    if (typeof value !== 'string' || !UINT64.test(value) || BigInt(value) >= 2n ** 64n)
      return `${name} is not a uint64`;
  if (typeof m.revocable !== 'boolean') return 'revocable is not a boolean';
  if (!Number.isSafeInteger(domain.chainId) || domain.chainId <= 0) return 'chainId is not a chain id';
  if (typeof domain.name !== 'string' || typeof domain.version !== 'string') return 'the domain has no name or version';
  if (![0, 1, 27, 28].includes(signature.v)) return 'v is not a recovery id';
  return undefined;
}

/** The signer of the package's EIP-712 message, under the fixed EAS types (a package cannot bring its own). */
async function recoverSigner(pkg: OffchainPackage): Promise<Hex | undefined> {
  const { domain, message: m, signature } = pkg.sig;
  try {
    return await recoverTypedDataAddress({
      domain: { ...domain, verifyingContract: domain.verifyingContract as Hex },
      types: OFFCHAIN_ATTEST_TYPES,
      primaryType: 'Attest',
      message: {
        version: OFFCHAIN_VERSION,
        schema: m.schema as Hex,
        recipient: m.recipient as Hex,
        time: BigInt(m.time),
        expirationTime: BigInt(m.expirationTime),
        revocable: m.revocable,
        refUID: m.refUID as Hex,
        data: m.data as Hex,
        salt: m.salt as Hex,
      },
      signature: { r: signature.r as Hex, s: signature.s as Hex, yParity: signature.v % 27 },
    });
  } catch {
    return undefined; // a point that is not on the curve recovers nothing
  }
}

/**
 * Checks an off-chain attestation package without trusting the service (no network): its EIP-712 signature must
 * recover to the expected attester under the EAS "EAS Attestation" domain, and its uid must be the one its signed
 * fields hash to. Answers `{ valid: false, reason }` for a package that fails, rather than throwing; pass a record's
 * `offchain` as it is (null for an on-chain record gives `no_package`). Revocation is on chain: see the README.
 */
export async function verifyOffchain(
  pkg: OffchainPackage | null | undefined,
  options: VerifyOffchainOptions = {},
): Promise<OffchainVerification> {
  if (!pkg) return failure('no_package', 'there is no off-chain package (an on-chain attestation has none)');
  if (typeof pkg !== 'object' || pkg.sig?.version !== OFFCHAIN_VERSION || pkg.sig.message?.version !== OFFCHAIN_VERSION)
    return failure('unsupported_version', 'only EAS off-chain attestations of version 2 are supported');
  const malformed = malformation(pkg);
  if (malformed) return failure('malformed', `the package is malformed: ${malformed}`);
  const { domain, message } = pkg.sig;
  if (domain.name !== OFFCHAIN_DOMAIN_NAME)
    return failure('wrong_domain', `signed for the domain "${domain.name}", not "${OFFCHAIN_DOMAIN_NAME}"`);
  if (options.chainId !== undefined && domain.chainId !== options.chainId)
    return failure('wrong_domain', `signed for chain ${domain.chainId}, not ${options.chainId}`);
  if (options.easAddress !== undefined && !sameHex(domain.verifyingContract, options.easAddress))
    return failure('wrong_domain', `signed for EAS at ${domain.verifyingContract}, not ${options.easAddress}`);

  const uid = offchainUid(message);
  if (!sameHex(uid, pkg.sig.uid))
    return failure('uid_mismatch', `the signed fields hash to ${uid}, not ${pkg.sig.uid}`);
  if (options.uid !== undefined && !sameHex(uid, options.uid))
    return failure('uid_mismatch', `the package is attestation ${uid}, not ${options.uid}`);
  const refUid = BigInt(message.refUID) === 0n ? null : (message.refUID as Hex);
  if (options.refUid !== undefined && !sameHex(refUid ?? 'none', options.refUid ?? 'none'))
    return failure(
      'ref_mismatch',
      `the package derives from ${refUid ?? 'nothing'}, not ${options.refUid ?? 'nothing'}`,
    );

  const expected = options.attester ?? pkg.signer;
  const recovered = await recoverSigner(pkg);
  if (!recovered) return failure('bad_signature', 'the signature does not recover to any address');
  if (typeof expected !== 'string' || !sameHex(recovered, expected))
    return failure('wrong_attester', `signed by ${recovered}, not by ${String(expected)}`);

  const expiration = BigInt(message.expirationTime);
  const nowSeconds = BigInt(Math.floor((options.now ?? Date.now)() / 1000));
  if (expiration !== 0n && expiration <= nowSeconds)
    return failure('expired', `expired at ${expiration} (Unix seconds)`);
  const ai = options.ai ? await signedAiDetails(options.ai, { ...options, uid, attester: recovered, domain }) : null;
  if (ai && 'valid' in ai) return ai;
  return {
    valid: true,
    attester: recovered,
    uid,
    time: new Date(Number(message.time) * 1000),
    chainId: domain.chainId,
    easAddress: domain.verifyingContract as Hex,
    schema: message.schema as Hex,
    refUid,
    claim: decodeAttestationData(message.data),
    ai,
  };
}

/** The AI details a record shows, checked against their signed attestation (which must name the claim's uid). */
async function signedAiDetails(
  ai: NonNullable<VerifyOffchainOptions['ai']>,
  claim: { uid: Hex; attester: Hex; domain: OffchainPackage['sig']['domain']; now?: (() => number) | undefined },
): Promise<{ model: string; promptHash: string | null } | OffchainVerification> {
  const mismatch = (why: string) => failure('ai_mismatch', `the AI details are not signed: ${why}`);
  const { domain } = claim;
  const checked = await verifyOffchain(ai.offchain, {
    attester: claim.attester,
    refUid: claim.uid,
    chainId: domain.chainId,
    easAddress: domain.verifyingContract,
    ...(claim.now ? { now: claim.now } : {}),
  });
  if (!checked.valid) return mismatch(checked.message);
  if (!sameHex(checked.schema, AI_DETAILS_SCHEMA_UID)) return mismatch(`their schema is ${checked.schema}`);
  const signed = decodeAiDetails(ai.offchain!.sig.message.data);
  if (!signed) return mismatch('their data is not of the AI-details schema');
  if (signed.model !== ai.model) return mismatch(`the signed model is "${signed.model}", not "${ai.model}"`);
  if (!sameHex(signed.promptHash ?? 'none', ai.promptHash ?? 'none'))
    return mismatch(`the signed prompt hash is ${signed.promptHash ?? 'none'}, not ${ai.promptHash ?? 'none'}`);
  return signed;
}
