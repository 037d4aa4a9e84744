import { createHash } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

/** What an audit entry says; `hash` covers all of it and the previous entry's hash. */
export interface AuditFields {
  accountId: string;
  at: Date;
  action: string;
  actorKeyPrefix: string | null;
  resource: string;
  outcome: 'success' | 'denied' | 'failure';
  ip: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

/** JSON with object keys sorted at every depth, so the same entry always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** SHA-256 over the previous hash and the canonical entry (timestamps as ISO 8601 with milliseconds). */
export function entryHash(prevHash: string, fields: AuditFields): string {
  const canonical = canonicalJson({ ...fields, at: fields.at.toISOString() });
  return createHash('sha256').update(prevHash).update('\n').update(canonical).digest('hex');
}
