import { EVENT_KINDS, type EventKind } from '@attestation-service/protocol';
import { WEBHOOK_URL_MAX, webhookSubscriptionInput } from '@attestation-service/server/rules';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { Address } from '../components/address.tsx';
import { ConfirmAction } from '../components/confirm.tsx';
import { ItemButton } from '../components/item-button.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { ReceiverHint } from '../components/receiver-hint.tsx';
import { Submit } from '../components/submit.tsx';
import { DataTable } from '../components/table.tsx';
import { WebhookSecretOnce } from '../components/webhook-secret.tsx';
import { useConfirmTarget } from '../lib/confirm.ts';
import { when } from '../lib/format.ts';
import { useRefresh } from '../lib/refresh.ts';
import { useCan } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { check } from '../lib/validate.ts';
import { useTRPC, type Outputs } from '../lib/trpc.ts';
import { RotateSecret, RotationState, useSendTest } from './webhooks-rotation.tsx';

type Webhook = Outputs['webhooks']['list'][number];

/**
 * The account's webhook subscriptions: create and rotate (the secret shown once), send a test event, delete; each
 * links its deliveries.
 */
export default function Webhooks() {
  useTitle('Webhooks');
  const trpc = useTRPC();
  const canChange = useCan('developer');
  const hooks = useQuery(trpc.dashboard.webhooks.list.queryOptions());
  const deleting = useConfirmTarget<Webhook>();
  const rotating = useConfirmTarget<Webhook>();
  const sendTest = useSendTest(deleting.setDone);

  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">
        Each event is POSTed to your URL, signed with the subscription’s secret twice: in{' '}
        <code>X-Service-Signature</code> over the body, and by the Standard Webhooks scheme (<code>webhook-id</code>,{' '}
        <code>webhook-timestamp</code>, <code>webhook-signature</code>) so a receiver can refuse old replays. A failed
        delivery is tried up to five times in all.
      </p>
      {canChange ? <CreateWebhook /> : null}
      {canChange ? <RotateSecret target={rotating.target} onClose={rotating.close} /> : null}
      <section aria-labelledby="hooks-title">
        <h2 id="hooks-title">Subscriptions</h2>
        <Messages success={deleting.done} error={sendTest.error} />
        <QueryState pending={hooks.isPending} error={hooks.error} label="subscriptions" />
        {hooks.data && hooks.data.length === 0 ? <p>No subscriptions yet.</p> : null}
        {hooks.data && hooks.data.length > 0 ? (
          <DataTable
            label="Webhook subscriptions"
            columns={['URL', 'Events', 'Created', 'Secret', 'Deliveries', canChange && 'Action']}
          >
            {hooks.data.map((hook) => (
              <tr key={hook.id}>
                <th scope="row">
                  <Address value={hook.url} />
                </th>
                <td>{hook.events.join(', ')}</td>
                <td>{when(hook.createdAt)}</td>
                <td>
                  <RotationState hook={hook} />
                </td>
                <td>
                  <Link to="/webhooks/$id" params={{ id: hook.id }}>
                    Deliveries<span className="visually-hidden"> to {hook.url}</span>
                  </Link>
                </td>
                {canChange ? (
                  <td>
                    <div className="actions">
                      <ItemButton
                        label="Send test event"
                        item={hook.url}
                        look="secondary"
                        disabled={sendTest.isPending}
                        onClick={() => sendTest.mutate({ id: hook.id })}
                      />
                      <ItemButton
                        label="Rotate secret"
                        item={hook.url}
                        look="secondary"
                        onClick={() => rotating.ask(hook)}
                      />
                      <ItemButton label="Delete" item={hook.url} onClick={() => deleting.ask(hook)} />
                    </div>
                  </td>
                ) : null}
              </tr>
            ))}
          </DataTable>
        ) : null}
      </section>
      {canChange ? <DeleteWebhook target={deleting.target} onClose={deleting.close} /> : null}
    </>
  );
}

function CreateWebhook() {
  const trpc = useTRPC();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventKind[]>(['attestation.created']);
  const [invalid, setInvalid] = useState('');
  const refresh = useRefresh(trpc.dashboard.webhooks.list.queryFilter());
  const create = useMutation(trpc.dashboard.webhooks.create.mutationOptions({ onSuccess: refresh }));

  function toggle(kind: EventKind, on: boolean) {
    setEvents((current) => (on ? [...current, kind] : current.filter((k) => k !== kind)));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const input = check(webhookSubscriptionInput, { url, events }, { url: 'Receiver URL', events: 'Events' });
    setInvalid(input.problem ?? '');
    if (input.ok) create.mutate(input.data);
  }

  if (create.data) {
    return (
      <WebhookSecretOnce
        title={`Signing secret for ${create.data.url}`}
        secret={create.data.secret}
        standardWebhooksSecret={create.data.standardWebhooksSecret}
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
            maxLength={WEBHOOK_URL_MAX}
            placeholder="https://hooks.example.com/attestations"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
          <ReceiverHint />
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
          <Submit busy={create.isPending} working="Adding…">
            Add subscription
          </Submit>
        </p>
        <Messages error={invalid || create.error} />
      </form>
    </section>
  );
}

function DeleteWebhook({ target, onClose }: { target: Webhook | null; onClose: (message?: string) => void }) {
  const trpc = useTRPC();
  const refresh = useRefresh(trpc.dashboard.webhooks.list.queryFilter());
  const remove = useMutation(trpc.dashboard.webhooks.delete.mutationOptions({ onSuccess: refresh }));
  return (
    <ConfirmAction
      target={target}
      action={remove}
      input={(hook) => ({ id: hook.id })}
      done={(hook) => `Subscription ${hook.url} deleted.`}
      onClose={onClose}
      title="Delete this subscription?"
      confirmLabel="Delete"
    >
      <p>
        <Address value={target?.url ?? ''} /> will receive no more events. Deliveries not yet sent are dropped.
      </p>
    </ConfirmAction>
  );
}
