import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ConfirmDialog } from '../components/confirm.tsx';
import { SecretOnce } from '../components/copy.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { when } from '../lib/format.ts';
import { tiersUpTo, type Tier } from '../lib/roles.ts';
import { useCan, useSession } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC, type Out } from '../lib/trpc.ts';
import { TableWrap } from '../components/table-wrap.tsx';

type Key = Out<'keys', 'list'>[number];

/** The account's API keys: list; create (developer+, tiers up to the plan); revoke (admin+). */
export default function Keys() {
  useTitle('API keys');
  const trpc = useTRPC();
  const canCreate = useCan('developer');
  const canRevoke = useCan('admin');
  const keys = useQuery(trpc.dashboard.keys.list.queryOptions());
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [revoked, setRevoked] = useState('');

  return (
    <>
      <h1>API keys</h1>
      <p className="muted">Keys authenticate calls to the REST API and the SDK. A revoked key stops working at once.</p>
      {canCreate ? <CreateKey /> : null}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <Messages success={revoked} />
        <QueryState pending={keys.isPending} error={keys.error} label="keys" />
        {keys.data && keys.data.length === 0 ? <p>No keys yet.</p> : null}
        {keys.data && keys.data.length > 0 ? (
          <TableWrap label="API keys">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Tier</th>
                  <th scope="col">Created by</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">State</th>
                  {canRevoke ? <th scope="col">Action</th> : null}
                </tr>
              </thead>
              <tbody>
                {keys.data.map((key) => (
                  <tr key={key.prefix}>
                    <th scope="row">{key.name}</th>
                    <td>
                      <code>{key.prefix}</code>
                    </td>
                    <td>{key.tier}</td>
                    <td>{key.createdBy ? key.createdBy.name || key.createdBy.email : 'operator (CLI)'}</td>
                    <td>{when(key.createdAt)}</td>
                    <td>{key.lastUsedAt ? when(key.lastUsedAt) : 'never'}</td>
                    <td>
                      {key.state === 'revoked' ? (
                        <span className="badge bad">revoked {when(key.revokedAt)}</span>
                      ) : (
                        <span className="badge ok">active</span>
                      )}
                    </td>
                    {canRevoke ? (
                      <td>
                        {key.state === 'active' ? (
                          <button type="button" className="danger small" onClick={() => setRevoking(key)}>
                            Revoke<span className="visually-hidden"> {key.name}</span>
                          </button>
                        ) : null}
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        ) : null}
      </section>
      {canRevoke ? (
        <RevokeKey
          target={revoking}
          onClose={(message) => {
            setRevoking(null);
            if (message) setRevoked(message);
          }}
        />
      ) : null}
    </>
  );
}

function CreateKey() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { membership } = useSession();
  const tiers = tiersUpTo(membership?.plan ?? 'free');
  const [name, setName] = useState('');
  const [tier, setTier] = useState<Tier>('free');
  const create = useMutation(
    trpc.dashboard.keys.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.keys.list.queryKey() }),
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ name, tier });
  }

  if (create.data) {
    return (
      <SecretOnce
        title={`New key “${create.data.name}” (${create.data.tier})`}
        value={create.data.key}
        onDone={() => {
          create.reset();
          setName('');
        }}
      />
    );
  }
  return (
    <section aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <form onSubmit={submit} className="row-form">
        <label>
          Name
          <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Tier
          <select value={tier} onChange={(e) => setTier(e.target.value as Tier)}>
            {tiers.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
      </form>
      <p className="hint">
        Your plan ({membership?.plan ?? 'free'}) allows keys up to the {tiers.at(-1)} tier.
      </p>
      <Messages error={create.error} />
    </section>
  );
}

function RevokeKey({ target, onClose }: { target: Key | null; onClose: (message?: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const revoke = useMutation(
    trpc.dashboard.keys.revoke.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.dashboard.keys.list.queryKey() }),
    }),
  );
  function close(message?: string) {
    revoke.reset();
    onClose(message);
  }
  return (
    <ConfirmDialog
      open={target !== null}
      title="Revoke this key?"
      confirmLabel="Revoke permanently"
      busy={revoke.isPending}
      error={revoke.error}
      onCancel={() => close()}
      onConfirm={() =>
        target && revoke.mutate({ prefix: target.prefix }, { onSuccess: () => close(`Key ${target.prefix} revoked.`) })
      }
    >
      <p>
        <strong>{target?.name}</strong> (<code>{target?.prefix}</code>) will stop working immediately: every call with
        it will be refused with <code>401 API_KEY_REVOKED</code>. This is permanent and cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
