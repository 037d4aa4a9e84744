import type { ExportFormat } from './contracts.ts';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  return header.split(',').flatMap((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const [type, subtype] = range.trim().split('/');
    if (!type || !subtype) return [];
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    return [{ type, subtype, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 }];
  });
}

/** RFC 9110 §12.5.1: the quality of a media type is that of the most specific range matching it. */
function qualityOf(ranges: MediaRange[], type: string, subtype: string): number {
  let specificity = -1;
  let q = 0;
  for (const range of ranges) {
    const s =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (s > specificity) {
      specificity = s;
      q = range.q;
    }
  }
  return q;
}

/**
 * The export format an Accept header asks for: CSV when text/csv ranks above application/json, JSON on a tie or
 * without a header; undefined when the header accepts neither (406).
 */
export function formatFromAccept(accept: string | undefined): ExportFormat | undefined {
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = parseAccept(accept);
  const json = qualityOf(ranges, 'application', 'json');
  const csv = qualityOf(ranges, 'text', 'csv');
  if (json <= 0 && csv <= 0) return undefined;
  return csv > json ? 'csv' : 'json';
}
