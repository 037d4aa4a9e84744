import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { lazy, Suspense, type ReactNode } from 'react';
import { QueryState } from '../components/messages.tsx';
import { DataTable } from '../components/table.tsx';
import { count, day, when } from '../lib/format.ts';
import { useCan, useSession } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC, type Outputs } from '../lib/trpc.ts';

// uPlot is fetched only when the chart is drawn: the first load stays small
const UsageChart = lazy(() => import('../components/usage-chart.tsx'));

type OverviewData = Outputs['overview']['get'];

/** This month's on-chain use per key, attestations per day (30 days), webhook deliveries (7 days). */
export function Overview() {
  useTitle('Overview');
  const trpc = useTRPC();
  const { membership } = useSession();
  const overview = useQuery(trpc.dashboard.overview.get.queryOptions());
  return (
    <>
      <h1>Overview{membership ? <span className="muted">: {membership.accountName}</span> : null}</h1>
      <QueryState pending={overview.isPending} error={overview.error} label="the overview" />
      {overview.data ? <Sections data={overview.data} /> : null}
    </>
  );
}

function Sections({ data }: { data: OverviewData }) {
  return (
    <>
      <section aria-labelledby="quota-title">
        <h2 id="quota-title">On-chain quota this month</h2>
        <p className="muted">
          Period {data.period}, plan {data.plan}. Quotas reset {when(data.resetsAt)}. Each key has its tier&apos;s
          quota, and all keys together have the account&apos;s.
        </p>
        <Meter
          label={<strong>All keys together</strong>}
          name="All keys together"
          detail={`${data.account.tier} plan`}
          used={data.account.used}
          quota={data.account.quota}
        />
        {data.keys.length === 0 ? (
          <NoKeys />
        ) : (
          <ul className="quotas">
            {data.keys.map((key) => (
              <li key={key.prefix}>
                <Meter
                  label={
                    <>
                      <strong>{key.name}</strong> <code>{key.prefix}</code>
                    </>
                  }
                  name={key.name ?? key.prefix}
                  detail={key.tier}
                  used={key.used}
                  quota={key.quota}
                />
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="daily-title">
        <h2 id="daily-title">Attestations per day (30 days)</h2>
        <Suspense
          fallback={
            <div className="chart-box chart-loading">
              <p className="muted">Drawing the chart…</p>
            </div>
          }
        >
          <UsageChart daily={data.daily} />
        </Suspense>
        <details>
          <summary>Show the figures as a table</summary>
          <DailyTable daily={data.daily} />
        </details>
      </section>
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Webhook deliveries (7 days)</h2>
        <DeliveriesTable deliveries={data.deliveries} />
      </section>
    </>
  );
}

/** An account without keys: where to make one, or who can. */
function NoKeys() {
  const canCreate = useCan('developer');
  return canCreate ? (
    <p>
      No API keys yet. <Link to="/keys">Create your first key</Link> to call the API.
    </p>
  ) : (
    <p>No API keys yet. A developer, admin or owner of this account can create one.</p>
  );
}

/** One quota's use: a key's against its tier, or the account's keys together against its plan. */
function Meter({
  label,
  name,
  detail,
  used,
  quota,
}: {
  label: ReactNode;
  name: string;
  detail: string;
  used: number;
  quota: number | null;
}) {
  // null: the tier's on-chain use is unlimited (enterprise)
  const max = quota !== null && quota > 0 ? quota : null;
  const ratio = max !== null ? Math.min(1, used / max) : 0;
  return (
    <>
      <p className="quota-label">
        <span>
          {label} <span className="muted">({detail})</span>
        </span>
        <span>
          {count(used)} / {max !== null ? count(max) : quota === null ? 'unlimited' : 'no on-chain quota'}
        </span>
      </p>
      {max !== null ? (
        <meter
          min={0}
          max={max}
          low={max * 0.8}
          high={max * 0.95}
          optimum={0}
          value={used}
          aria-label={`${name}: ${count(used)} of ${count(max)} on-chain attestations used`}
          className={ratio >= 0.95 ? 'meter full' : 'meter'}
        />
      ) : null}
    </>
  );
}

const DAILY_COLUMNS = ['Day', 'On-chain, human', 'On-chain, AI', 'Off-chain, human', 'Off-chain, AI'];
const DELIVERY_COLUMNS = ['Day', 'Delivered', 'Failed, retry due', 'Dead'];

function DailyTable({ daily }: { daily: OverviewData['daily'] }) {
  return (
    <DataTable
      label="Attestations per day"
      caption="Attestations per day, oldest first"
      columns={DAILY_COLUMNS}
      numeric={DAILY_COLUMNS.slice(1)}
      stack={false}
      className="figures"
    >
      {daily.map((row) => (
        <tr key={row.day}>
          <th scope="row" className="day">
            {day(row.day)}
          </th>
          <td className="num">{count(row.onchainHuman)}</td>
          <td className="num">{count(row.onchainAi)}</td>
          <td className="num">{count(row.offchainHuman)}</td>
          <td className="num">{count(row.offchainAi)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function DeliveriesTable({ deliveries }: { deliveries: OverviewData['deliveries'] }) {
  return (
    <DataTable
      label="Webhook deliveries per day"
      columns={DELIVERY_COLUMNS}
      numeric={DELIVERY_COLUMNS.slice(1)}
      stack={false}
      className="figures"
    >
      {deliveries.map((row) => (
        <tr key={row.day}>
          <th scope="row" className="day">
            {day(row.day)}
          </th>
          <td className="num">{count(row.completed)}</td>
          <td className="num">{count(row.failed)}</td>
          <td className={row.dead > 0 ? 'num bad-text' : 'num'}>{count(row.dead)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
