import { gunzipSync } from 'node:zlib';
import type { Attestation } from '@attestation-service/client';
import { sourceTypeOf } from '../source-type.ts';
import type { StatusListChecker, StatusListSignal } from '../verdict/types.ts';
import { CouldNotFetch, type CredentialSource } from './credential-source.ts';
import { Unsound, verifyVcJwt } from './vc-jwt.ts';

/** W3C Bitstring Status List's smallest list, in bits: fewer would let a list tell which credential is asked about. */
export const STATUS_LIST_MIN_BITS = 131_072;
/** A list's bits are read into memory: more than this decompressed is not a status list. */
const MAX_LIST_BYTES = 1 << 20;
/** The list a credential names, by its path on the API; it is read from the configured API, never from the URL's host. */
const LIST_PATH = /\/v1\/status-lists\/(0|[1-9][0-9]{0,12})$/;

/** The bit at `index` of an `encodedList` ('u' + base64url of the GZIP-compressed bits, index 0 the first byte's MSB). */
export function statusBit(encodedList: string, index: number): boolean {
  if (!encodedList.startsWith('u')) throw new Unsound('its encodedList is not multibase base64url (prefix u)');
  let bits: Buffer;
  try {
    bits = gunzipSync(Buffer.from(encodedList.slice(1), 'base64url'), { maxOutputLength: MAX_LIST_BYTES });
  } catch {
    throw new Unsound('its encodedList does not decompress to a list of bits');
  }
  if (bits.length * 8 < STATUS_LIST_MIN_BITS || index >= bits.length * 8)
    throw new Unsound(`its list holds ${bits.length * 8} bits, too few for index ${index}`);
  return (bits[index >> 3]! & (0x80 >> (index & 7))) !== 0;
}

const same = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
const objectAt = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
const typesOf = (payload: Record<string, unknown>) => (Array.isArray(payload.type) ? payload.type : []);

/** The credential's status entry, once it is the attestation's credential and says what the record says. */
function statusEntryOf(credential: Record<string, unknown>, kid: string, record: Attestation) {
  const subject = objectAt(credential.credentialSubject);
  const issuer = credential.issuer;
  if (!typesOf(credential).includes('VerifiableCredential') || typeof issuer !== 'string')
    throw new Unsound('the credential is not a Verifiable Credential with an issuer');
  if (!kid.startsWith(`${issuer}#`)) throw new Unsound(`its key ${kid} is not one of its issuer ${issuer}`);
  const sourceType = sourceTypeOf(record);
  const differs = [
    !same(objectAt(subject.eas).uid, record.uid) && 'uid',
    !same(subject.contentHash, record.contentHash) && 'content hash',
    subject.origin !== record.type && 'origin',
    sourceType && subject.digitalSourceType !== sourceType.uri && 'digital source type',
  ].filter(Boolean);
  if (differs.length > 0) throw new Unsound(`the credential differs from the record in its ${differs.join(', ')}`);
  const status = objectAt(credential.credentialStatus);
  const list = typeof status.statusListCredential === 'string' ? LIST_PATH.exec(status.statusListCredential) : null;
  const index = typeof status.statusListIndex === 'string' ? status.statusListIndex : '';
  if (status.type !== 'BitstringStatusListEntry' || status.statusPurpose !== 'revocation' || !list)
    throw new Unsound('the credential names no revocation BitstringStatusListEntry on this API');
  if (!/^(0|[1-9][0-9]{0,8})$/.test(index)) throw new Unsound(`its statusListIndex ${index} is not an index`);
  return { issuer, list: list[1]!, index: Number(index) };
}

/** Whether the list, once it is the issuer's revocation list and still valid, has the entry's bit set. */
function revokedIn(list: Record<string, unknown>, entry: { issuer: string; index: number }, now: number): boolean {
  const subject = objectAt(list.credentialSubject);
  if (!typesOf(list).includes('BitstringStatusListCredential') || list.issuer !== entry.issuer)
    throw new Unsound(`the status list is not a BitstringStatusListCredential of ${entry.issuer}`);
  if (subject.statusPurpose !== 'revocation' || typeof subject.encodedList !== 'string')
    throw new Unsound('the status list is not a revocation list');
  if (typeof list.validUntil === 'string' && Date.parse(list.validUntil) < now)
    throw new Unsound(`the status list expired at ${list.validUntil}`);
  return statusBit(subject.encodedList, entry.index);
}

/**
 * The status list signal of an attestation: its credential and the list it names, both verified against the API's
 * JWKS, and the bit read. A failure to reach the API is `unchecked`, never "not revoked".
 */
export function createStatusListChecker(source: CredentialSource, now: () => number = Date.now): StatusListChecker {
  async function read(record: Attestation, visitorIp: string, fresh: boolean): Promise<StatusListSignal> {
    const jws = await source.credential(record.uid, visitorIp);
    if (jws === null) return { state: 'unchecked', reason: 'the API serves no credential for this attestation' };
    const credential = await verifyVcJwt(jws, source);
    const entry = statusEntryOf(credential.payload, credential.kid, record);
    const list = await verifyVcJwt(await source.statusList(entry.list, fresh), source);
    const revoked = revokedIn(list.payload, entry, now());
    return { state: revoked ? 'revoked' : 'not-revoked', list: entry.list, index: entry.index };
  }
  return {
    async check(record, visitorIp, fresh = false) {
      try {
        return await read(record, visitorIp, fresh);
      } catch (error) {
        if (error instanceof Unsound) return { state: 'unsound', reason: error.message };
        if (error instanceof CouldNotFetch) return { state: 'unchecked', reason: error.message };
        return { state: 'unchecked', reason: `the status list could not be read (${String(error)})` };
      }
    },
  };
}
