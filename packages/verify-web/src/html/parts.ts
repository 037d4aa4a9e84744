import { html, type SafeHtml } from './escape.ts';

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return 'unknown time';
  return new Date(iso).toUTCString().replace('GMT', 'UTC');
}

export function maybeLink(href: string | undefined, text: string): SafeHtml {
  return href
    ? html`<a href="${href}" rel="noopener noreferrer" class="mono">${text}</a>`
    : html`<span class="mono">${text}</span>`;
}

/** One term and its value in a record's list of fields. */
export function row(term: string, value: SafeHtml | string): SafeHtml {
  return html`<div>
    <dt>${term}</dt>
    <dd>${value}</dd>
  </div>`;
}
