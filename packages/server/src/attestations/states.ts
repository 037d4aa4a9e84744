import type { Origin } from '@attestation-service/protocol';

/** The closed sets of values the attestations table holds, written once (the columns are text). */

/** Where the content came from: the set our EAS schema encodes (its `aiGenerated` flag). */
export type AttestationOrigin = Origin;

/** On-chain (an EAS transaction) or off-chain (a signed EAS attestation). */
export type AttestationMode = 'onchain' | 'offchain';

/** An attestation's life: on-chain ones are `pending` until their transaction is mined or fails; off-chain ones are born `confirmed`. */
export type AttestationStatus = 'pending' | 'confirmed' | 'failed';

/** A revocation's life: `pending` while the relayer revokes, `done` once mined, `failed` if its transaction failed. */
export type RevokeState = 'pending' | 'done' | 'failed';
