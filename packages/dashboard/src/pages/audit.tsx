import { AUDIT_ACTIONS } from '@attestation-service/protocol';
import { useState, type FormEvent } from 'react';
import { Address } from '../components/address.tsx';
import { LoadMore } from '../components/load-more.tsx';
import { QueryState } from '../components/messages.tsx';
import { DataTable } from '../components/table.tsx';
import { short, when } from '../lib/format.ts';
import { useKeysetPages, withCursor } from '../lib/pages.ts';
import { useSession } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC, useTRPCClient, type Outputs } from '../lib/trpc.ts';

type AuditEntry = Outputs['audit']['list']['data'][number];

interface Filters {
  action?: string;
  actor?: string;
  from?: string;
  to?: string;
}

/** A datetime-local value (the reader's time zone) as an ISO instant; undefined when empty or invalid. */
function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The account's audit log: filter, page with "Load more", download a range as CSV or JSON. */
export default function Audit() {
  useTitle('Audit log');
  const trpc = useTRPC();
  const client = useTRPCClient();
  const { membership } = useSession();
  const [draft, setDraft] = useState({ action: '', actor: '', from: '', to: '' });
  const [filters, setFilters] = useState<Filters>({});
  const list = useKeysetPages(trpc.dashboard.audit.list.infiniteQueryKey(filters), (cursor) =>
    client.dashboard.audit.list.query(withCursor({ ...filters, limit: 50 }, cursor)),
  );
  const items = list.items;

  function apply(event: FormEvent) {
    event.preventDefault();
    const next: Filters = {};
    if (draft.action.trim()) next.action = draft.action.trim();
    if (draft.actor.trim()) next.actor = draft.actor.trim();
    const from = isoOf(draft.from);
    const to = isoOf(draft.to);
    if (from) next.from = from;
    if (to) next.to = to;
    setFilters(next);
  }

  function exportUrl(format: 'csv' | 'json'): string {
    const query = new URLSearchParams({ format });
    if (filters.from) query.set('from', filters.from);
    if (filters.to) query.set('to', filters.to);
    if (membership) query.set('account', membership.accountId);
    return `/dashboard/api/audit-export?${query}`;
  }

  const field = (name: keyof typeof draft) => ({
    value: draft[name],
    onChange: (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [name]: e.target.value })),
  });

  return (
    <>
      <h1>Audit log</h1>
      <form className="row-form" onSubmit={apply} aria-label="Audit log filters">
        <label>
          Action
          <input placeholder="api_key.revoked" list="audit-actions" spellCheck={false} {...field('action')} />
          {/* every action the service records, offered as suggestions (any text is accepted) */}
          <datalist id="audit-actions">
            {AUDIT_ACTIONS.map((action) => (
              <option key={action} value={action} />
            ))}
          </datalist>
        </label>
        <label>
          Actor
          <input placeholder="key prefix or email" spellCheck={false} {...field('actor')} />
        </label>
        <label>
          From
          <input type="datetime-local" {...field('from')} />
        </label>
        <label>
          To
          <input type="datetime-local" {...field('to')} />
        </label>
        <button type="submit">Apply</button>
      </form>
      <p className="downloads">
        Download {filters.from || filters.to ? 'this time range' : 'the whole log'}:{' '}
        <a href={exportUrl('csv')} download>
          CSV
        </a>{' '}
        ·{' '}
        <a href={exportUrl('json')} download>
          JSON
        </a>
      </p>
      <QueryState pending={list.isPending} error={list.error} label="the audit log" />
      {list.isSuccess && items.length === 0 ? <p>No entries match.</p> : null}
      {items.length > 0 ? <AuditRows items={items} /> : null}
      <LoadMore pages={list} />
    </>
  );
}

/** The entries of the pages loaded, newest first. */
function AuditRows({ items }: { items: AuditEntry[] }) {
  return (
    <DataTable
      label="Audit entries"
      caption="Audit entries, newest first"
      columns={['When', 'Action', 'Actor', 'Resource', 'Outcome', 'Address', 'Details']}
    >
      {items.map((entry) => (
        <tr key={entry.id}>
          <th scope="row" className="when">
            {when(entry.at)}
          </th>
          <td>
            <code>{entry.action}</code>
          </td>
          <td>{entry.actor ? <Address value={entry.actor} /> : '—'}</td>
          <td className="break resource">{entry.resource ? <Resource value={entry.resource} /> : '—'}</td>
          <td>{entry.outcome}</td>
          <td>{entry.ip ?? '—'}</td>
          <td className="excerpt">
            <Details details={entry.details} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/** `attestation:0x…` with its long hex shortened (whole in the title); any other resource as it is. */
function Resource({ value }: { value: string }) {
  const hex = /^([a-z_]+):(0x[0-9a-f]{24,})$/i.exec(value);
  if (!hex) return <>{value}</>;
  return (
    <span title={value}>
      {hex[1]}:<code>{short(hex[2]!)}</code>
    </span>
  );
}

/** An e-mail address or URL: wrapped at its seams, not anywhere as the rest of the details. */
const ADDRESS = /^[^\s@]+@[^\s@]+$|^https?:\/\//;

/** An entry's details as `key: value` lines; the actor is in its own column already. */
function Details({ details }: { details: Record<string, unknown> }) {
  const lines = Object.entries(details).filter(([key]) => key !== 'actor');
  if (lines.length === 0) return <>—</>;
  return (
    <>
      {lines.map(([key, value]) => (
        <code key={key}>
          {key}:{' '}
          {typeof value !== 'string' ? JSON.stringify(value) : ADDRESS.test(value) ? <Address value={value} /> : value}
        </code>
      ))}
    </>
  );
}
