import { claimantOf, quoted } from '../claimant.ts';
import { escapeHtml } from '../html/escape.ts';
import { sourceTypeOf } from '../source-type.ts';
import type { Verdict } from '../verdict/types.ts';

const LABEL = 'attestation';

/**
 * ` · by <claimant>` when a customer's own attester signed it: a domain the account proved, or else its name, quoted
 * and labelled self-declared (a name is the account's own choice). Cut to keep a badge small: a name at 24
 * characters; a domain from the left, since its end (the registered domain) is what says whose it is.
 */
function byClaimant(v: Pick<Verdict, 'record'>): string {
  if (!v.record) return '';
  const c = claimantOf(v.record);
  if (c.kind !== 'account') return '';
  if (c.domain) return ` · by ${c.domain.length > 40 ? `…${c.domain.slice(-39)}` : c.domain} (verified domain)`;
  if (!c.name) return ` · by ${c.address.slice(0, 6)}…${c.address.slice(-4)}`;
  return ` · by ${quoted(c.name.length > 24 ? `${c.name.slice(0, 23)}…` : c.name)} (self-declared)`;
}

/** ` (trained model)`: the digital source type's short form, when the record names one. */
function bySource(v: Pick<Verdict, 'record'>): string {
  const t = v.record && sourceTypeOf(v.record);
  return t ? ` (${t.short})` : '';
}

/** The badge's message and colour (each with at least 4.5:1 contrast against its white text). */
function badgeMessage(v: Pick<Verdict, 'state' | 'record'>): { text: string; color: string } {
  switch (v.state) {
    case 'verified':
      return v.record?.type === 'ai'
        ? { text: `AI-generated${bySource(v)} · verified${byClaimant(v)}`, color: '#1d4ed8' }
        : { text: `Human-made${bySource(v)} · verified${byClaimant(v)}`, color: '#15803d' };
    case 'revoked':
      return { text: 'revoked', color: '#b91c1c' };
    case 'mismatch':
      return { text: 'mismatch', color: '#b45309' };
    case 'unavailable':
      return { text: 'cannot verify now', color: '#4b5563' };
    case 'rate-limited':
      return { text: 'retry later', color: '#4b5563' };
    default:
      return { text: 'not found', color: '#4b5563' };
  }
}

export function badgeLabel(v: Pick<Verdict, 'state' | 'record'>): string {
  return `${LABEL}: ${badgeMessage(v).text}`;
}

// Approximate advance widths of Verdana at 11px; textLength pins the rendered width to them whatever font is used.
const NARROW = new Set([..."ijlI.,:;!|' "]);
const WIDE = new Set([...'mwMW@']);
function textWidth(text: string): number {
  let width = 0;
  for (const ch of text)
    width += NARROW.has(ch) ? 3.5 : WIDE.has(ch) ? 10 : ch === '·' ? 4.5 : /[A-Z]/.test(ch) ? 7.5 : 6.8;
  return Math.round(width);
}

/** The digital source type in full, for the badge's description: the label and the IPTC URI, and the AI model. */
function sourceDescription(v: Pick<Verdict, 'state' | 'record'>): string {
  const t = v.state === 'verified' && v.record ? sourceTypeOf(v.record) : null;
  if (!t) return '';
  const model = v.record?.ai ? `; model: ${escapeHtml(v.record.ai.model)}` : '';
  return `\n<desc>Digital source type: ${escapeHtml(t.label)} (${escapeHtml(t.uri)})${model}</desc>`;
}

/**
 * A flat badge in the style of shields.io: grey label, coloured message, accessible name and a <title>; a verified
 * one describes its digital source type in full (<desc>).
 */
export function badgeSvg(v: Pick<Verdict, 'state' | 'record'>): string {
  const { text, color } = badgeMessage(v);
  const labelWidth = textWidth(LABEL) + 12;
  const messageWidth = textWidth(text) + 12;
  const width = labelWidth + messageWidth;
  const name = escapeHtml(`${LABEL}: ${text}`);
  const t = (x: number, w: number, s: string) =>
    `<text x="${x}" y="15" fill="#010101" fill-opacity=".3" textLength="${w}" aria-hidden="true">${escapeHtml(s)}</text><text x="${x}" y="14" textLength="${w}">${escapeHtml(s)}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${name}" viewBox="0 0 ${width} 20">
<title>${name}</title>${sourceDescription(v)}
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${labelWidth}" height="20" fill="#4b5563"/><rect x="${labelWidth}" width="${messageWidth}" height="20" fill="${color}"/><rect width="${width}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">${t(labelWidth / 2, textWidth(LABEL), LABEL)}${t(labelWidth + messageWidth / 2, textWidth(text), text)}</g>
</svg>
`;
}
