import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ConfirmAction } from '../../components/confirm.tsx';
import { ItemButton } from '../../components/item-button.tsx';
import { Messages, QueryState } from '../../components/messages.tsx';
import { Submit } from '../../components/submit.tsx';
import { authClient } from '../../lib/auth.ts';
import { useConfirmTarget } from '../../lib/confirm.ts';
import { unwrapAuth } from '../../lib/errors.ts';
import { when } from '../../lib/format.ts';
import { useRefresh } from '../../lib/refresh.ts';

// better-auth's own endpoint, outside the tRPC router: the one key the tRPC integration cannot make
const PASSKEYS = ['auth', 'passkeys'] as const;

interface PasskeyRow {
  id: string;
  name?: string | undefined;
  createdAt: Date | string;
  deviceType: string;
  backedUp: boolean;
}

/** The member's passkeys: add one (the browser asks the authenticator), rename, remove. */
export function Passkeys() {
  const list = useQuery({
    queryKey: PASSKEYS,
    queryFn: async (): Promise<PasskeyRow[]> => unwrapAuth(await authClient.passkey.listUserPasskeys()) ?? [],
  });
  const refresh = useRefresh({ queryKey: PASSKEYS });
  const [name, setName] = useState('');
  const removing = useConfirmTarget<PasskeyRow>();
  const { done, setDone } = removing;

  const add = useMutation({
    mutationFn: async (passkeyName: string) => unwrapAuth(await authClient.passkey.addPasskey({ name: passkeyName })),
    onSuccess: () => {
      setDone('Passkey added: you can sign in with it now.');
      setName('');
      return refresh();
    },
  });
  const rename = useMutation({
    mutationFn: async (input: { id: string; name: string }) =>
      unwrapAuth(await authClient.passkey.updatePasskey(input)),
    onSuccess: () => {
      setDone('Passkey renamed.');
      return refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async (id: string) => unwrapAuth(await authClient.passkey.deletePasskey({ id })),
    onSuccess: refresh,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setDone('');
    add.mutate(name.trim() || 'Passkey');
  }

  return (
    <section aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p className="muted">Sign in with your device’s screen lock or a security key instead of a password.</p>
      <form className="row-form" onSubmit={submit}>
        <label className="grow">
          Name for a new passkey
          <input maxLength={100} placeholder="Work laptop" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <Submit busy={add.isPending} working="Waiting for the authenticator…">
          Add a passkey
        </Submit>
      </form>
      <Messages success={done} error={add.error || rename.error} />
      <QueryState pending={list.isPending} error={list.error} label="passkeys" />
      {list.data && list.data.length === 0 ? <p>No passkeys yet.</p> : null}
      <ul className="plain">
        {list.data?.map((passkey) => (
          <li key={passkey.id} className="card">
            <PasskeyItem passkey={passkey} onRename={(n) => rename.mutate({ id: passkey.id, name: n })} />
            <ItemButton label="Remove" item={passkey.name ?? 'passkey'} onClick={() => removing.ask(passkey)} />
          </li>
        ))}
      </ul>
      <ConfirmAction
        target={removing.target}
        action={remove}
        input={(passkey) => passkey.id}
        done={() => 'Passkey removed.'}
        onClose={removing.close}
        title="Remove this passkey?"
        confirmLabel="Remove"
      >
        <p>
          “{removing.target?.name ?? 'Passkey'}” will no longer sign you in. Your password and other passkeys still do.
        </p>
      </ConfirmAction>
    </section>
  );
}

function PasskeyItem({ passkey, onRename }: { passkey: PasskeyRow; onRename: (name: string) => void }) {
  const [name, setName] = useState(passkey.name ?? '');
  return (
    <form
      className="row-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) onRename(name.trim());
      }}
    >
      <label className="grow">
        Name
        <input maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <button type="submit" className="secondary small">
        Rename
      </button>
      <span className="muted small">
        added {when(new Date(passkey.createdAt).toISOString())}
        {passkey.backedUp ? ' · synced' : ''}
      </span>
    </form>
  );
}
