import { DELIVERY_STATES } from '@attestation-service/server/rules';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { Address } from '../components/address.tsx';
import { LoadMore } from '../components/load-more.tsx';
import { QueryState } from '../components/messages.tsx';
import { SelectOf } from '../components/select-of.tsx';
import { DataTable } from '../components/table.tsx';
import { when } from '../lib/format.ts';
import { useKeysetPages, withCursor } from '../lib/pages.ts';
import { useTitle } from '../lib/title.ts';
import { useTRPC, useTRPCClient, type Outputs } from '../lib/trpc.ts';
import { unawaited } from '../lib/unawaited.ts';

type Delivery = Outputs['webhooks']['deliveries']['data'][number];

const route = getRouteApi('/_app/webhooks/$id');

const STATE_CHOICES = ['', ...DELIVERY_STATES] as const;

/** One subscription's deliveries, newest first, each with its attempts; filter by state. */
export default function Deliveries() {
  useTitle('Webhook deliveries');
  const trpc = useTRPC();
  const { id } = route.useParams();
  // the filter is in the address: a deep link or the back button shows the same list
  const { state } = route.useSearch();
  const navigate = route.useNavigate();
  const hooks = useQuery(trpc.dashboard.webhooks.list.queryOptions());
  const hook = hooks.data?.find((h) => h.id === id);
  const client = useTRPCClient();
  const input = { subscriptionId: id, ...(state ? { state } : {}) };
  const deliveries = useKeysetPages(trpc.dashboard.webhooks.deliveries.infiniteQueryKey(input), (cursor) =>
    client.dashboard.webhooks.deliveries.query(withCursor(input, cursor)),
  );
  const items = deliveries.items;

  return (
    <>
      <p className="crumbs">
        <Link to="/webhooks" activeOptions={{ exact: true }}>
          Webhooks
        </Link>{' '}
        /
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
          <SelectOf
            values={STATE_CHOICES}
            labels={{ '': 'Any' }}
            value={state ?? ''}
            onChange={unawaited((next) => navigate({ search: next ? { state: next } : {}, replace: true }))}
          />
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
