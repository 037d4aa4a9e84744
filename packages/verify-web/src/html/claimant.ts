import type { Attestation } from '@attestation-service/client';
import { addressLink } from '../chains.ts';
import { claimantOf, quoted } from '../claimant.ts';
import { html, type SafeHtml } from './escape.ts';
import { maybeLink, row } from './parts.ts';

/** Whose claim it is, in words for the verdict's sentence: a proved domain's attester, or a self-declared name's. */
export function claimantWords(r: Attestation | null): string {
  const c = r ? claimantOf(r) : undefined;
  if (c?.kind !== 'account') return 'the service attester';
  if (c.domain) return `${c.domain}'s attester ${c.address}`;
  return c.name
    ? `the attester ${c.address} of an account that calls itself ${quoted(c.name)} (self-declared)`
    : `the customer attester ${c.address}`;
}

/**
 * The "Claimed by" row: a domain the account proved, with its self-chosen name second; or, with no such domain,
 * the name in quotation marks as self-declared. The attester address is the chain's, and what the service vouches
 * for is that the account proved it.
 */
export function claimantRow(r: Attestation): SafeHtml {
  const c = claimantOf(r);
  if (c.kind !== 'account')
    return row('Claimed by', html`<span data-claimant="service">The attestation service (its own attester)</span>`);
  const attester = html`the attester ${maybeLink(addressLink(r.chainId, c.address), c.address)} signed it; the service
  says this account proved control of that address by a signed challenge.`;
  if (c.domain)
    return row(
      'Claimed by',
      html`<span data-claimant="account" data-claimant-verified="domain"
          ><strong>${c.domain}</strong> (verified domain)</span
        >: the account proved it controls this domain.
        ${c.name ? html`It calls itself ${quoted(c.name)} (self-declared).` : ''} ${attester}`,
    );
  return row(
    'Claimed by',
    html`<span data-claimant="account" data-claimant-verified="none"
        >${c.name ? html`<strong>${quoted(c.name)}</strong>` : 'An account of the service'} (self-declared)</span
      >: the account chose this name itself and proved no domain, so nothing here says who it is. ${attester}`,
  );
}
