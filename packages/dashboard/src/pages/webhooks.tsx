import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ConfirmDialog } from '../components/confirm.tsx';
import { SecretOnce } from '../components/copy.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { EVENT_KINDS, type EventKind } from '../lib/events.ts';
import { when } from '../lib/format.ts';
import { Link } from '../lib/router.tsx';
import { useCan } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC, type Out } from '../lib/trpc.ts';
import { TableWrap } from '../components/table-wrap.tsx';

type Webhook = Out<'webhooks', 'list'>[number];

/** The account's webhook subscriptions: create (the secret shown once), list, delete; each links its deliveries. */
export default function Webhooks() {
  useTitle('Webhooks');
  const trpc = useTRPC();
  const canChange = useCan('developer');
  const hooks = useQuery(trpc.dashboard.webhooks.list.queryOptions());
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [done, setDone] = useState('');

  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">
        Each event is POSTed to your URL, signed with the subscription’s secret in the <code>X-Service-Signature</code>{' '}
        header; a failed delivery is tried up to five times in all.
      </p>
      {canChange ? <CreateWebhook /> : null}
      <section aria-labelledby="hooks-title">
        <h2 id="hooks-title">Subscriptions</h2>
        <Messages success={done} />
        <QueryState pending={hooks.isPending} error={hooks.error} label="subscriptions" />
        {hooks.data && hooks.data.length === 0 ? <p>No subscriptions yet.</p> : null}
        {hooks.data && hooks.data.length > 0 ? (
          <TableWrap label="Webhook subscriptions">
            <table>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Created</th>
                  <th scope="col">Deliveries</th>
                  {canChange ? <th scope="col">Action</th> : null}
                </tr>
              </thead>
              <tbody>
                {hooks.data.map((hook) => (
                  <tr key={hook.id}>
                    <th scope="row" className="break">
                      {hook.url}
                    </th>
                    <td>{hook.events.join(', ')}</td>
                    <td>{when(hook.createdAt)}</td>
                    <td>
                      <Link to={`webhooks/${encodeURIComponent(hook.id)}`}>
                        Deliveries<span className="visually-hidden"> to {hook.url}</span>
                      </Link>
                    </td>
                    {canChange ? (
                      <td>
                        <button type="button" className="danger small" onClick={() => setDeleting(hook)}>
                          Delete<span className="visually-hidden"> {hook.url}</span>
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        ) : null}
      </section>
      {canChange ? (
        <DeleteWebhook
          target={deleting}
          onClose={(message) => {
            setDeleting(null);
            if (message) setDone(message);
          }}
        />
      ) : null}
    </>
  );
}

function CreateWebhook() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventKind[]>(['attestation.created']);
  const [invalid, setInvalid] = useState('');
  const create = useMutation(
    trpc.dashboard.webhooks.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.webhooks.list.queryKey() }),
    }),
  );

  function toggle(kind: EventKind, on: boolean) {
    setEvents((current) => (on ? [...current, kind] : current.filter((k) => k !== kind)));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (events.length === 0) {
      setInvalid('Pick at least one event.');
      return;
    }
    setInvalid('');
    create.mutate({ url, events });
  }

  if (create.data) {
    return (
      <SecretOnce
        title={`Signing secret for ${create.data.url}`}
        value={create.data.secret}
        onDone={() => {
          create.reset();
          setUrl('');
        }}
      />
    );
  }
  return (
    <section aria-labelledby="create-hook-title">
      <h2 id="create-hook-title">Add a subscription</h2>
      <form onSubmit={submit} className="stack">
        <label>
          Receiver URL
          <input
            type="url"
            required
            maxLength={2048}
            placeholder="https://hooks.example.com/attestations"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
          <span className="hint">https, reachable from the internet (no private or loopback addresses).</span>
        </label>
        <fieldset>
          <legend>Events</legend>
          {EVENT_KINDS.map((kind) => (
            <label key={kind} className="check">
              <input type="checkbox" checked={events.includes(kind)} onChange={(e) => toggle(kind, e.target.checked)} />
              <code>{kind}</code>
            </label>
          ))}
        </fieldset>
        <p className="actions">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Adding…' : 'Add subscription'}
          </button>
        </p>
        <Messages error={invalid || create.error} />
      </form>
    </section>
  );
}

function DeleteWebhook({ target, onClose }: { target: Webhook | null; onClose: (message?: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(
    trpc.dashboard.webhooks.delete.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.webhooks.list.queryKey() }),
    }),
  );
  function close(message?: string) {
    remove.reset();
    onClose(message);
  }
  return (
    <ConfirmDialog
      open={target !== null}
      title="Delete this subscription?"
      confirmLabel="Delete"
      busy={remove.isPending}
      error={remove.error}
      onCancel={() => close()}
      onConfirm={() =>
        target && remove.mutate({ id: target.id }, { onSuccess: () => close(`Subscription ${target.url} deleted.`) })
      }
    >
      <p>
        <span className="break">{target?.url}</span> will receive no more events. Deliveries not yet sent are dropped.
      </p>
    </ConfirmDialog>
  );
}
