import type { Attestation } from '@attestation-service/client';
import { addressLink, attestationLink, chainName, txLink } from '../chains.ts';
import { claimantRow, claimantWords } from './claimant.ts';
import type { Check, Verdict } from '../verdict/types.ts';
import { badgeLabel } from '../badge/svg.ts';
import { tooManyLookups } from '../records.ts';
import { html, type SafeHtml } from './escape.ts';
import { contentCheckForm, layout } from './layout.ts';
import { formatTime, maybeLink, row } from './parts.ts';
import { promotionRow, provenanceRow } from './provenance.ts';
import { revocationRow } from './revocation.ts';
import { sourceTypeRow } from './source-type.ts';
import { aiDetailsRow } from './ai-details.ts';

const ORIGIN = { human: 'Human-made', ai: 'AI-generated' } as const;

/** Whose the off-chain signature is, in words. */
function signatureWords(r: Attestation | null): string {
  return r?.claimant?.kind === 'account' ? `that of ${claimantWords(r)}` : "the service attester's own";
}

const HEADLINES: Record<Verdict['state'], { title: string; text: (r: Attestation | null, v: Verdict) => string }> = {
  verified: {
    title: 'Verified',
    text: (r, v) =>
      r?.mode === 'offchain'
        ? `The signature is ${signatureWords(r)}, over exactly these fields, and the EAS contract records no revocation.` +
          (v.anchor?.verified ? ` Its anchor on the chain shows it existed by ${formatTime(v.anchor.existedBy)}.` : '')
        : `The EAS contract on the chain holds this attestation from ${claimantWords(r)}, and it says exactly what our record says.`,
  },
  revoked: {
    title: 'Revoked',
    text: (_r, v) =>
      `The attester revoked this attestation on the chain (${formatTime(v.chainRevokedAt)})` +
      `${v.statusList?.state === 'revoked' ? ", and the service's status list says so too" : ''}. It no longer stands.`,
  },
  mismatch: {
    title: 'Mismatch',
    text: () =>
      'Our record does not agree with what the chain proves. Do not rely on this attestation; the failed checks are listed below.',
  },
  'not-found': {
    title: 'Not found',
    text: () => 'No attestation with this identifier exists. Check the link, or look the content up by its hash.',
  },
  unavailable: {
    title: 'Cannot verify right now',
    text: () =>
      'The chain or the attestation service did not answer in time. Nothing is known to be wrong; try again in a minute.',
  },
  'rate-limited': {
    title: 'Too many lookups',
    text: (_r, v) => `${tooManyLookups(v.retryAfterSeconds ?? 60)} Nothing is known to be wrong with this attestation.`,
  },
};

/** An off-chain attestation's anchor: the chain's time of its root, "not anchored yet", or why the proof fails. */
function anchorRow(r: Attestation, v: Verdict): SafeHtml | '' {
  if (r.mode !== 'offchain') return '';
  const a = v.anchor;
  const term = 'Anchored on chain';
  if (a?.verified)
    return row(
      term,
      html`<span data-anchor="verified"
          >Existed by <time datetime="${a.existedBy}">${formatTime(a.existedBy)}</time></span
        >: the block time at which the EAS contract timestamped the Merkle root that holds it (transaction
        ${maybeLink(txLink(r.chainId, a.txHash), a.txHash)}, block ${String(a.blockNumber)})`,
    );
  if (a)
    return row(
      term,
      html`<span data-anchor="failed">The anchor does not hold</span>: ${a.reason}. This page makes no claim about when
        it existed.`,
    );
  if (v.state === 'unavailable' && r.anchor)
    return row(term, html`<span data-anchor="unchecked">Not checked just now</span>: the chain did not answer.`);
  return row(
    term,
    html`<span data-anchor="none">Not anchored yet</span>: the service timestamps new off-chain attestations on the
      chain in batches; look again in a few minutes.`,
  );
}

function details(r: Attestation, v: Verdict): SafeHtml {
  const onchain = r.mode === 'onchain';
  return html`<dl class="fields">
    ${row('Origin', ORIGIN[r.type])} ${sourceTypeRow(r)} ${aiDetailsRow(r)}
    ${row('Content hash (SHA-256)', html`<code data-field="content-hash">${r.contentHash}</code>`)}
    ${row('Content type', html`<code>${r.contentType}</code>`)}
    ${row('Created', html`<time datetime="${r.createdAt}">${formatTime(r.createdAt)}</time>`)}
    ${row('Kind', onchain ? 'On-chain (an EAS transaction)' : 'Off-chain (EAS signed attestation, EIP-712)')}
    ${row('Chain', `${chainName(r.chainId)} (id ${r.chainId})`)}
    ${onchain && r.txHash ? row('Transaction', maybeLink(txLink(r.chainId, r.txHash), r.txHash)) : ''}
    ${onchain && r.blockNumber !== null ? row('Block', String(r.blockNumber)) : ''}
    ${onchain && attestationLink(r.chainId, r.uid) ? row('On EAS explorer', maybeLink(attestationLink(r.chainId, r.uid), r.uid)) : ''}
    ${anchorRow(r, v)} ${claimantRow(r)} ${row('Attester', maybeLink(addressLink(r.chainId, r.attester), r.attester))}
    ${row('Schema', html`<code>${r.schemaUid}</code>`)} ${provenanceRow(r, v)} ${promotionRow(r)} ${revocationRow(r, v)}
    ${r.revocationTxHash ? row('Revocation transaction', maybeLink(txLink(r.chainId, r.revocationTxHash), r.revocationTxHash)) : ''}
  </dl>`;
}

function checkList(checks: Check[]): SafeHtml {
  if (checks.length === 0) return html``;
  return html`<section aria-labelledby="checks-heading">
    <h2 id="checks-heading">What was checked</h2>
    <ul class="checks">
      ${checks.map((c) => html`<li class="${c.ok ? 'pass' : 'fail'}" data-check="${c.label}"><span class="mark">${c.ok ? 'Passed' : 'Failed'}</span> <strong>${c.label}</strong>: ${c.detail}</li>`)}
    </ul>
  </section>`;
}

/** The content check compares with the record's hash only where the chain has just confirmed that hash. */
function contentSection(v: Verdict): SafeHtml {
  const r = v.record;
  if (!r) return html`<p><a href="/check">Look up content by its hash</a></p>`;
  if (v.state !== 'verified' && v.state !== 'revoked') {
    return html`<section aria-labelledby="check-heading">
      <h2 id="check-heading">Check your content</h2>
      <p>
        Not offered: the content hash in our record
        ${v.state === 'mismatch' ? 'does not agree with the chain' : 'could not be confirmed on the chain just now'}.
      </p>
    </section>`;
  }
  return contentCheckForm({
    expectedHash: r.contentHash,
    uid: r.uid,
    heading: 'Check your content',
    intro: 'Paste the text or drop the file to see whether it is the content this attestation is about.',
  });
}

function embed(verifyBaseUrl: string, uid: string, label: string): SafeHtml {
  const snippet = `<a href="${verifyBaseUrl}/${uid}"><img src="${verifyBaseUrl}/api/attestation/${uid}/badge.svg" alt="${label}" height="20"></a>`;
  return html`<section aria-labelledby="embed-heading">
    <h2 id="embed-heading">Embed the badge</h2>
    <p><img src="/api/attestation/${uid}/badge.svg" alt="Badge: ${label}" height="20" /></p>
    <label for="embed-snippet">HTML to paste into your page</label>
    <textarea id="embed-snippet" class="mono" rows="4" readonly>${snippet}</textarea>
    <p>
      Platforms can read the same verdict as JSON:
      <a href="/api/attestation/${uid}"><code>${verifyBaseUrl}/api/attestation/${uid}</code></a> (public, CORS open).
    </p>
  </section>`;
}

/** The page of one attestation: the verdict first, then the record, the checks, the content check and the badge. */
export function attestationPage(v: Verdict, verifyBaseUrl: string): string {
  const r = v.record;
  const headline = HEADLINES[v.state];
  const title = r ? `${ORIGIN[r.type]} · ${headline.title}` : `Attestation ${headline.title.toLowerCase()}`;
  const main = html`<h1>${r ? ORIGIN[r.type] : 'Attestation'}</h1>
    <p class="uid">Attestation <code>${v.uid}</code></p>
    <section class="verdict verdict-${v.state}" data-verdict="${v.state}" aria-labelledby="verdict-heading">
      <h2 id="verdict-heading"><span class="icon" aria-hidden="true"></span>${headline.title}</h2>
      <p>${headline.text(r, v)}</p>
    </section>
    ${r ? details(r, v) : ''} ${checkList(v.checks)} ${contentSection(v)}
    ${
      r && r.offchain
        ? html`<details>
            <summary>The signed attestation (EAS off-chain package)</summary>
            <pre class="mono">${JSON.stringify(r.offchain, null, 2)}</pre>
          </details>`
        : ''
    }
    ${r ? embed(verifyBaseUrl, r.uid, badgeLabel(v)) : ''}`;
  return layout(title, main);
}
