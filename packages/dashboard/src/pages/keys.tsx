import { createKeyInput, KEY_NAME_MAX, tiersUpTo, type Tier } from '@attestation-service/server/rules';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Address } from '../components/address.tsx';
import { ConfirmAction } from '../components/confirm.tsx';
import { SecretOnce } from '../components/copy.tsx';
import { ItemButton } from '../components/item-button.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { SelectOf } from '../components/select-of.tsx';
import { Submit } from '../components/submit.tsx';
import { DataTable } from '../components/table.tsx';
import { useConfirmTarget } from '../lib/confirm.ts';
import { when } from '../lib/format.ts';
import { useRefresh } from '../lib/refresh.ts';
import { useCan, useSession } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { check } from '../lib/validate.ts';
import { useTRPC, type Outputs } from '../lib/trpc.ts';

type Key = Outputs['keys']['list'][number];

/** The account's API keys: list; create (developer+, tiers up to the plan); revoke (admin+). */
export default function Keys() {
  useTitle('API keys');
  const trpc = useTRPC();
  const canCreate = useCan('developer');
  const canRevoke = useCan('admin');
  const keys = useQuery(trpc.dashboard.keys.list.queryOptions());
  const revoking = useConfirmTarget<Key>();

  return (
    <>
      <h1>API keys</h1>
      <p className="muted">Keys authenticate calls to the REST API and the SDK. A revoked key stops working at once.</p>
      {canCreate ? <CreateKey /> : null}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <Messages success={revoking.done} />
        <QueryState pending={keys.isPending} error={keys.error} label="keys" />
        {keys.data && keys.data.length === 0 ? (
          <p>
            {canCreate
              ? 'No keys yet: create one with the form above.'
              : 'No keys yet. A developer, admin or owner of this account can create one.'}
          </p>
        ) : null}
        {keys.data && keys.data.length > 0 ? (
          <DataTable
            label="API keys"
            columns={['Name', 'Prefix', 'Tier', 'Created by', 'Created', 'Last used', 'State', canRevoke && 'Action']}
          >
            {keys.data.map((key) => (
              <tr key={key.prefix}>
                <th scope="row">{key.name}</th>
                <td>
                  <code>{key.prefix}</code>
                </td>
                <td>{key.tier}</td>
                <td>
                  {key.createdBy ? key.createdBy.name || <Address value={key.createdBy.email} /> : 'operator (CLI)'}
                </td>
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
                      <ItemButton label="Revoke" item={key.name ?? ''} onClick={() => revoking.ask(key)} />
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </DataTable>
        ) : null}
      </section>
      {canRevoke ? <RevokeKey target={revoking.target} onClose={revoking.close} /> : null}
    </>
  );
}

/** After a key is made or revoked: the list here, and the Overview's per-key quotas, which it shows at once. */
function useKeysChanged() {
  const trpc = useTRPC();
  return useRefresh(trpc.dashboard.keys.list.queryFilter(), trpc.dashboard.overview.get.queryFilter());
}

function CreateKey() {
  const trpc = useTRPC();
  const { membership } = useSession();
  const tiers = tiersUpTo(membership?.plan ?? 'free');
  const [name, setName] = useState('');
  const [tier, setTier] = useState<Tier>('free');
  const [invalid, setInvalid] = useState('');
  const refresh = useKeysChanged();
  const create = useMutation(trpc.dashboard.keys.create.mutationOptions({ onSuccess: refresh }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const input = check(createKeyInput, { name, tier }, { name: 'Name', tier: 'Tier' });
    setInvalid(input.problem ?? '');
    if (input.ok) create.mutate(input.data);
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
          <input required maxLength={KEY_NAME_MAX} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Tier
          <SelectOf values={tiers} value={tier} onChange={setTier} />
        </label>
        <Submit busy={create.isPending} working="Creating…">
          Create key
        </Submit>
      </form>
      <p className="hint">
        Your plan ({membership?.plan ?? 'free'}) allows keys up to the {tiers.at(-1)} tier.
      </p>
      <Messages error={invalid || create.error} />
    </section>
  );
}

function RevokeKey({ target, onClose }: { target: Key | null; onClose: (message?: string) => void }) {
  const trpc = useTRPC();
  const refresh = useKeysChanged();
  const revoke = useMutation(trpc.dashboard.keys.revoke.mutationOptions({ onSuccess: refresh }));
  return (
    <ConfirmAction
      target={target}
      action={revoke}
      input={(key) => ({ prefix: key.prefix })}
      done={(key) => `Key ${key.prefix} revoked.`}
      onClose={onClose}
      title="Revoke this key?"
      confirmLabel="Revoke permanently"
    >
      <p>
        <strong>{target?.name}</strong> (<code>{target?.prefix}</code>) will stop working immediately: every call with
        it will be refused with <code>401 API_KEY_REVOKED</code>. This is permanent and cannot be undone.
      </p>
    </ConfirmAction>
  );
}
