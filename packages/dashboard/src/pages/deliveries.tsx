import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { PageProps } from '../app.tsx';
import { Address } from '../components/address.tsx';
import { LoadMore } from '../components/load-more.tsx';
import { QueryState } from '../components/messages.tsx';
import { SelectOf } from '../components/select-of.tsx';
import { DataTable } from '../components/table.tsx';
import { DELIVERY_STATES, type DeliveryState } from '../lib/events.ts';
import { when } from '../lib/format.ts';
import { useKeysetPages, withCursor } from '../lib/pages.ts';
import { Link } from '../lib/router.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC, useTRPCClient, type Out } from '../lib/trpc.ts';

type Delivery = Out<'webhooks', 'deliveries'>['items'][number];

const STATE_CHOICES = ['', ...DELIVERY_STATES] as const;

/** One subscription's deliveries, newest first, each with its attempts; filter by state. */
export default function Deliveries({ params }: PageProps) {
  useTitle('Webhook deliveries');
  const trpc = useTRPC();
  const id = params.id ?? '';
  const [state, setState] = useState<DeliveryState | ''>('');
  const hooks = useQuery(trpc.dashboard.webhooks.list.queryOptions());
  const hook = hooks.data?.find((h) => h.id === id);
  const client = useTRPCClient();
  const input = { subscriptionId: id, ...(state ? { state } : {}) };
  const deliveries = useKeysetPages(['dashboard.webhooks.deliveries', input], (cursor) =>
    client.dashboard.webhooks.deliveries.query(withCursor(input, cursor)),
  );
  const items = deliveries.items;

  return (
    <>
      <p className="crumbs">
        <Link to="webhooks">Webhooks</Link> /
      </p>
      <h1>Deliveries</h1>
      {hook ? (
        <p>
          To <Address value={hook.url} /> ({hook.events.join(', ')})
        </p>
      ) : null}
      <div className="row-form">
        <label>
          State
          <SelectOf values={STATE_CHOICES} labels={{ '': 'Any' }} value={state} onChange={setState} />
        </label>
      </div>
      <QueryState pending={deliveries.isPending} error={deliveries.error} label="deliveries" />
      {deliveries.isSuccess && items.length === 0 ? <p>No deliveries{state ? ` in state ${state}` : ''}.</p> : null}
      <ol className="cards" aria-label="Deliveries">
        {items.map((delivery) => (
          <li key={delivery.id}>
            <DeliveryCard delivery={delivery} />
          </li>
        ))}
      </ol>
      <LoadMore pages={deliveries} />
    </>
  );
}

const STATE_CLASS: Record<string, string> = { completed: 'ok', dead: 'bad', dropped: 'muted', pending: 'warn' };

function DeliveryCard({ delivery }: { delivery: Delivery }) {
  return (
    <article className="card" aria-label={`${delivery.event.type} delivery, ${delivery.state}`}>
      <p className="card-head">
        <code>{delivery.event.type}</code>
        <span className={`badge ${STATE_CLASS[delivery.state] ?? ''}`}>{delivery.state}</span>
        <span className="muted small">
          event <code>{delivery.event.id}</code> · created {when(delivery.createdAt)}
          {delivery.completedAt ? ` · delivered ${when(delivery.completedAt)}` : ''}
          {delivery.nextAttemptAt ? ` · next attempt ${when(delivery.nextAttemptAt)}` : ''}
        </span>
      </p>
      {delivery.state === 'dead' ? (
        <p className="note warn">
          All attempts failed. Fix the receiver, then ask support to replay this delivery (id <code>{delivery.id}</code>
          ).
        </p>
      ) : null}
      {delivery.attemptLog.length === 0 ? (
        <p className="muted small">No attempt yet.</p>
      ) : (
        <DataTable
          label={`Attempts of delivery ${delivery.id}`}
          caption={`Attempts of delivery ${delivery.id}`}
          className="compact"
          columns={['Attempt', 'At', 'Status', 'Duration', 'Answer or error']}
          numeric={['Duration']}
        >
          {delivery.attemptLog.map((attempt) => (
            <tr key={attempt.number}>
              <th scope="row">
                <span className="narrow-only">Attempt </span>
                {attempt.number}
              </th>
              <td>{when(attempt.at)}</td>
              <td>{attempt.status ?? '—'}</td>
              <td className="num">{attempt.durationMs} ms</td>
              <td className="excerpt">
                {attempt.error ? <span className="bad-text">{attempt.error}</span> : null}
                {attempt.responseBody ? <code>{attempt.responseBody}</code> : null}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </article>
  );
}
