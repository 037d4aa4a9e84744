import { planTier, TIERS } from '@attestation-service/server/rules';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Address } from '../components/address.tsx';
import { ConfirmAction } from '../components/confirm.tsx';
import { ItemButton } from '../components/item-button.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { SelectOf } from '../components/select-of.tsx';
import { DataTable } from '../components/table.tsx';
import { useConfirmTarget } from '../lib/confirm.ts';
import { count, when } from '../lib/format.ts';
import { useRefresh } from '../lib/refresh.ts';
import { useSession } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC } from '../lib/trpc.ts';

/** The operator's support view: find an account, see its usage, set its plan, revoke a key, replay a dead delivery. */
export default function Support() {
  useTitle('Support');
  const { me } = useSession();
  const trpc = useTRPC();
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const [accountId, setAccountId] = useState<string | null>(null);
  const found = useQuery({ ...trpc.dashboard.support.find.queryOptions({ query }), enabled: query.length > 0 });

  if (!me.support) {
    return (
      <>
        <h1>Support</h1>
        <p>This page is for the operator’s support team.</p>
      </>
    );
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    setAccountId(null);
    setQuery(text.trim());
  }

  return (
    <>
      <h1>Support</h1>
      <form className="row-form" role="search" onSubmit={submit}>
        <label className="grow">
          Find an account
          <input
            required
            value={text}
            placeholder="account name, key prefix or attestation uid"
            spellCheck={false}
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <button type="submit">Find</button>
      </form>
      {query ? <QueryState pending={found.isPending} error={found.error} label="accounts" /> : null}
      {found.data ? (
        <section aria-labelledby="found-title">
          <h2 id="found-title">Accounts found</h2>
          {found.data.length === 0 ? <p>No account matches.</p> : null}
          <ul className="plain">
            {found.data.map((account) => (
              <li key={account.accountId}>
                <button
                  type="button"
                  className={accountId === account.accountId ? 'link current' : 'link'}
                  aria-pressed={accountId === account.accountId}
                  onClick={() => setAccountId(account.accountId)}
                >
                  {account.name}
                </button>{' '}
                <span className="muted small">
                  {account.plan} · since {when(account.createdAt)}
                </span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {accountId ? <AccountView accountId={accountId} /> : null}
    </>
  );
}

function AccountView({ accountId }: { accountId: string }) {
  const trpc = useTRPC();
  const account = useQuery(trpc.dashboard.support.account.queryOptions({ accountId }));
  const refresh = useRefresh(trpc.dashboard.support.account.queryFilter({ accountId }));
  const revoking = useConfirmTarget<string>();
  const { done, setDone } = revoking;
  const setPlan = useMutation(trpc.dashboard.support.setPlan.mutationOptions({ onSuccess: refresh }));
  const revokeKey = useMutation(trpc.dashboard.support.revokeKey.mutationOptions({ onSuccess: refresh }));
  const replay = useMutation(trpc.dashboard.support.replayDelivery.mutationOptions({ onSuccess: refresh }));

  if (!account.data) return <QueryState pending={account.isPending} error={account.error} label="the account" />;
  const data = account.data;
  return (
    <section aria-labelledby="account-title">
      <h2 id="account-title">{data.name}</h2>
      <p className="muted small">
        Account <code>{data.accountId}</code>, created {when(data.createdAt)}
      </p>
      <Messages success={done} error={setPlan.error || replay.error} />
      <label>
        Plan
        <SelectOf
          values={TIERS}
          value={planTier(data.plan)}
          disabled={setPlan.isPending}
          onChange={(plan) => setPlan.mutate({ accountId, plan }, { onSuccess: () => setDone(`Plan set to ${plan}.`) })}
        />
      </label>
      <h3>Keys and this month’s on-chain use</h3>
      <DataTable
        label="Keys of the account"
        columns={['Key', 'Tier', 'Used / quota', 'State', 'Action']}
        numeric={['Used / quota']}
      >
        {data.usage.map((key) => (
          <tr key={key.prefix}>
            <th scope="row">
              {key.name ?? 'unnamed'} <code>{key.prefix}</code>
            </th>
            <td>{key.tier}</td>
            <td className="num">
              {count(key.used)} / {key.quota === null ? 'unlimited' : count(key.quota)}
            </td>
            <td>
              {key.revokedAt ? (
                <span className="badge bad">revoked {when(key.revokedAt)}</span>
              ) : (
                <span className="badge ok">active</span>
              )}
            </td>
            <td>
              {key.revokedAt ? null : (
                <ItemButton label="Revoke" item={key.prefix} onClick={() => revoking.ask(key.prefix)} />
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      <h3>Dead deliveries</h3>
      {data.deadDeliveries.length === 0 ? <p>None.</p> : null}
      <ul className="plain">
        {data.deadDeliveries.map((d) => (
          <li key={d.id} className="card">
            <p>
              <code>{typeof d.event === 'string' ? d.event : JSON.stringify(d.event)}</code> to{' '}
              <Address value={d.subscriptionUrl} />: {d.attempts} attempts, created {when(d.createdAt)}
            </p>
            <ItemButton
              label="Replay"
              item={`delivery ${d.id}`}
              look="secondary"
              disabled={replay.isPending}
              onClick={() =>
                replay.mutate(
                  { accountId, deliveryId: d.id },
                  { onSuccess: () => setDone(`Delivery ${d.id} queued again.`) },
                )
              }
            />
          </li>
        ))}
      </ul>
      <ConfirmAction
        target={revoking.target}
        action={revokeKey}
        input={(prefix) => ({ accountId, prefix })}
        done={(prefix) => `Key ${prefix} revoked.`}
        onClose={revoking.close}
        title="Revoke this key?"
        confirmLabel="Revoke permanently"
      >
        <p>
          Key <code>{revoking.target}</code> of {data.name} stops working at once (<code>401 API_KEY_REVOKED</code>).
          This is permanent; the action is audited with you as actor.
        </p>
      </ConfirmAction>
    </section>
  );
}
