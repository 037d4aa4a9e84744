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

/**
 * JSON with object keys sorted at every depth, so the same entry always hashes the same. Built by concatenation, not
 * entries, filters and joins: it runs for every audited change (each create), and this is its one walk of the entry.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    // an element JSON cannot write (undefined, a function) is left empty, as `join` would
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (canonicalJson(value[i]) ?? '');
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '';
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v !== undefined) out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `{${out}}`;
}

/** SHA-256 over the previous hash and the canonical entry (timestamps as ISO 8601 with milliseconds). */
export function entryHash(prevHash: string, fields: AuditFields): string {
  const canonical = canonicalJson({ ...fields, at: fields.at.toISOString() });
  return createHash('sha256').update(prevHash).update('\n').update(canonical).digest('hex');
}
