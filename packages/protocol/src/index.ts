/*
 * The protocol, written once for the service, the SDK (which bundles it), the verification app and the dashboard:
 * pure constants and functions, no Node module (libsecp256k1's loader is the separate `./secp256k1` entry).
 */
export {
  DELEGATED_ATTEST_TYPES,
  DELEGATED_DOMAIN_NAME,
  EAS_DOMAIN_TYPES,
  encodeType,
  OFFCHAIN_ATTEST_TYPES,
  OFFCHAIN_DOMAIN_NAME,
  OFFCHAIN_VERSION,
  type DelegatedDomain,
  type EasDomain,
  type Hex,
  type OffchainAttestFields,
  type OffchainDomain,
  type TypedField,
} from './eip712.ts';
export { offchainUid, type OffchainUidFields } from './uid.ts';
export {
  AI_DETAILS_SCHEMA,
  AI_DETAILS_SCHEMA_UID,
  decodeAiDetails,
  decodeAttestationData,
  encodeAiDetailsData,
  encodeAttestationData,
  SCHEMA,
  SCHEMA_RESOLVER,
  SCHEMA_REVOCABLE,
  SCHEMA_UID,
  schemaUid,
  type Origin,
} from './schema.ts';
export { CONTENT_HASH_PATTERN, CONTENT_HASH_RULE, isContentHash, normalizeContentHash } from './content-hash.ts';
export {
  AUDIT_ACTIONS,
  EVENT_KINDS,
  TEST_EVENT,
  type AuditAction,
  type EventKind,
  type WebhookEventType,
} from './events.ts';
