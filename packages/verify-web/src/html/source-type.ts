import type { Attestation } from '@attestation-service/client';
import { sourceTypeOf } from '../source-type.ts';
import { html, type SafeHtml } from './escape.ts';
import { row } from './parts.ts';

/** How the content came to be, as the record names it: the IPTC term's label and its URI (linked when it is IPTC's). */
export function sourceTypeRow(r: Attestation): SafeHtml | '' {
  const t = sourceTypeOf(r);
  if (!t) return '';
  const uri = t.known
    ? html`<a href="${t.uri}" rel="noopener noreferrer" class="mono small">${t.uri}</a>`
    : html`<code class="small">${t.uri}</code>`;
  return row('Digital source type', html`<span data-source-type="${t.uri}">${t.label}</span><br />${uri}`);
}
