import type { Attestation } from '@attestation-service/client';
import type { Verdict } from '../verdict/types.ts';
import { html, type SafeHtml } from './escape.ts';
import { row } from './parts.ts';

const UID = /^0x[0-9a-fA-F]{64}$/;
const VERDICT_WORDS = { valid: 'valid', revoked: 'revoked' } as const;

/** A uid as a link to its own page (only a well-formed uid becomes a path). */
const uidLink = (uid: string): SafeHtml =>
  UID.test(uid) ? html`<a href="/${uid}" class="mono">${uid}</a>` : html`<span class="mono">${uid}</span>`;

/**
 * "Derived from": each origin back to the first, newest first, with its standing as the service records it. Each
 * link's own page verifies it against the chain; this page's verdict is about this attestation alone.
 */
export function provenanceRow(r: Attestation, v: Verdict): SafeHtml | '' {
  if (!r.refUid) return '';
  const origins = v.provenance?.links.slice(1) ?? [];
  if (origins.length === 0)
    return row(
      'Derived from',
      html`<span data-provenance="unchecked">${uidLink(r.refUid)}</span> (chain not read just now)`,
    );
  return row(
    'Derived from',
    html`<ol class="provenance" data-provenance="chain">
      ${origins.map(
        (link) =>
          html`<li data-link-verdict="${VERDICT_WORDS[link.verdict] ?? 'unknown'}">
            Derived from ${uidLink(link.uid)} (${link.mode === 'onchain' ? 'on-chain' : 'off-chain'},
            ${VERDICT_WORDS[link.verdict] ?? 'unknown'})
          </li>`,
      )}
      ${v.provenance?.truncated ? html`<li data-provenance="truncated">…and older origins, not shown</li>` : ''}
    </ol>`,
  );
}

/**
 * The promotion link, as the service records it: an off-chain original names the on-chain attestation that put it on
 * chain, and that one names its original. Each page verifies its own attestation against the chain.
 */
export function promotionRow(r: Attestation): SafeHtml | '' {
  if (r.onchainUid) return row('Put on chain as', html`<span data-promotion="onchain">${uidLink(r.onchainUid)}</span>`);
  if (r.offchainUid)
    return row('Off-chain original', html`<span data-promotion="offchain">${uidLink(r.offchainUid)}</span>`);
  return '';
}
