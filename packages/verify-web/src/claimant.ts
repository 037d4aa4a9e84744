import type { Attestation } from '@attestation-service/client';

/**
 * Whose claim an attestation is, as the page and the badge present it. An account's name is its own choice (anyone
 * may call an account "The attestation service"), so it is only ever shown as self-declared; what a stranger can
 * check is a domain the account proved it controls. `verified` is about the claimant, not the attestation: a proved
 * domain, or the service itself (the attester this app is configured to trust).
 */
interface ClaimantView {
  kind: 'service' | 'account';
  address: string;
  /** The account's self-declared name; null for the service (and an account the record does not name). */
  name: string | null;
  domain: string | null;
  verified: boolean;
}

export function claimantOf(r: Pick<Attestation, 'claimant' | 'attester'>): ClaimantView {
  const c = r.claimant;
  if (c?.kind !== 'account')
    return { kind: 'service', address: c?.address ?? r.attester, name: null, domain: null, verified: true };
  // an API from before domains were proved sends no domain: the name alone, self-declared
  const domain = c.domain ?? null;
  return { kind: 'account', address: c.address, name: c.accountName, domain, verified: domain !== null };
}

/** A self-declared name as the page and the badge quote it: in quotation marks, so it never reads as our word. */
export const quoted = (name: string) => `“${name}”`;
