import { addressSchema, signatureSchema } from '@attestation-service/server/rules';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ConfirmAction } from '../components/confirm.tsx';
import { CopyButton } from '../components/copy.tsx';
import { ItemButton } from '../components/item-button.tsx';
import { Messages, QueryState } from '../components/messages.tsx';
import { Submit } from '../components/submit.tsx';
import { DataTable } from '../components/table.tsx';
import { useConfirmTarget } from '../lib/confirm.ts';
import { when } from '../lib/format.ts';
import { useRefresh } from '../lib/refresh.ts';
import { useCan } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC, type Outputs } from '../lib/trpc.ts';
import { check } from '../lib/validate.ts';

type Attester = Outputs['attesters']['list']['data'][number];

/**
 * The addresses this account signs its own attestations with (delegated EIP-712 requests, the relayer paying the
 * gas): list (viewer+); add by signing a challenge with the address's key, and remove (admin+).
 */
export default function Attesters() {
  useTitle('Attester addresses');
  const trpc = useTRPC();
  const canManage = useCan('admin');
  const attesters = useQuery(trpc.dashboard.attesters.list.queryOptions());
  const removing = useConfirmTarget<Attester>();
  const list = attesters.data?.data;

  return (
    <>
      <h1>Attester addresses</h1>
      <p className="muted">
        An address registered here may sign this account&apos;s attestations itself: the record, the verification page
        and the badge then name that address as the attester, and the service still pays the gas. A signature by an
        address that is not registered is refused.
      </p>
      {canManage ? <AddAttester onAdded={removing.setDone} /> : null}
      <section aria-labelledby="attesters-title">
        <h2 id="attesters-title">Addresses</h2>
        <Messages success={removing.done} />
        <QueryState pending={attesters.isPending} error={attesters.error} label="addresses" />
        {list && list.length === 0 ? (
          <p>
            {canManage
              ? 'No address yet: add one with the form above.'
              : 'No address yet. An admin or owner of this account can add one.'}
          </p>
        ) : null}
        {list && list.length > 0 ? (
          <DataTable label="Attester addresses" columns={['Address', 'Registered', canManage && 'Action']}>
            {list.map((attester) => (
              <tr key={attester.address}>
                <th scope="row">
                  <code>{attester.address}</code>
                </th>
                <td>{when(attester.createdAt)}</td>
                {canManage ? (
                  <td>
                    <ItemButton label="Remove" item={attester.address} onClick={() => removing.ask(attester)} />
                  </td>
                ) : null}
              </tr>
            ))}
          </DataTable>
        ) : null}
      </section>
      {canManage ? <RemoveAttester target={removing.target} onClose={removing.close} /> : null}
    </>
  );
}

/** Two steps: the address gets its challenge, then the challenge's signature by that address registers it. */
function AddAttester({ onAdded }: { onAdded: (message: string) => void }) {
  const trpc = useTRPC();
  const [address, setAddress] = useState('');
  const [signature, setSignature] = useState('');
  const [invalid, setInvalid] = useState('');
  // a refused signature used its message up (each is tried once): back to the first step, with the reason
  const [refused, setRefused] = useState<unknown>(null);
  const refresh = useRefresh(trpc.dashboard.attesters.list.queryFilter());
  const challenge = useMutation(trpc.dashboard.attesters.challenge.mutationOptions());
  const register = useMutation(
    trpc.dashboard.attesters.register.mutationOptions({
      onSuccess: async (attester) => {
        await refresh();
        onAdded(`Address ${attester.address} registered.`);
        startOver();
      },
      onError: (error) => {
        setRefused(error);
        setSignature('');
        challenge.reset();
      },
    }),
  );

  function startOver() {
    challenge.reset();
    register.reset();
    setAddress('');
    setSignature('');
    setInvalid('');
    setRefused(null);
  }

  function ask(event: FormEvent) {
    event.preventDefault();
    const input = check(addressSchema, address.trim());
    setInvalid(input.problem ? `Address: ${input.problem}` : '');
    setRefused(null);
    if (input.ok) challenge.mutate({ address: input.data });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const input = check(signatureSchema, signature.trim());
    setInvalid(input.problem ? `Signature: ${input.problem}` : '');
    if (input.ok && challenge.data) register.mutate({ challengeId: challenge.data.id, signature: input.data });
  }

  if (!challenge.data)
    return (
      <section aria-labelledby="add-attester-title">
        <h2 id="add-attester-title">Add an address</h2>
        <form onSubmit={ask} className="row-form">
          <HexField label="Address" placeholder="0x…" value={address} onChange={setAddress} />
          <Submit busy={challenge.isPending} working="Asking…">
            Get the message to sign
          </Submit>
        </form>
        <Messages error={invalid || challenge.error || refused} />
        {refused ? <p className="hint">Each message can be signed once: get a new one and sign it again.</p> : null}
      </section>
    );

  const { message, expiresAt } = challenge.data;
  return (
    <section aria-labelledby="add-attester-title">
      <h2 id="add-attester-title">Sign for {challenge.data.address}</h2>
      <p>
        Sign this message, exactly as it is, with the key of that address (EIP-191 <code>personal_sign</code>): in your
        wallet, with <code>cast wallet sign</code>, or with the SDK&apos;s <code>attesters.register(account)</code>,
        which does both steps. It can be used once, until {when(expiresAt)}.
      </p>
      <pre className="challenge" tabIndex={0} aria-label="Message to sign">
        {message}
      </pre>
      <CopyButton value={message} label="Copy the message" />
      <form onSubmit={submit} className="row-form">
        <HexField label="Signature" placeholder="0x… (130 hex characters)" value={signature} onChange={setSignature} />
        <Submit busy={register.isPending} working="Registering…">
          Register address
        </Submit>
        <button type="button" className="secondary" onClick={startOver}>
          Start over
        </button>
      </form>
      <Messages error={invalid} />
    </section>
  );
}

/** A hex value typed or pasted as it is: no spelling check, no autocomplete. */
function HexField(props: { label: string; placeholder: string; value: string; onChange: (value: string) => void }) {
  return (
    <label>
      {props.label}
      <input
        required
        spellCheck={false}
        autoComplete="off"
        placeholder={props.placeholder}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </label>
  );
}

function RemoveAttester({ target, onClose }: { target: Attester | null; onClose: (message?: string) => void }) {
  const trpc = useTRPC();
  const refresh = useRefresh(trpc.dashboard.attesters.list.queryFilter());
  const remove = useMutation(trpc.dashboard.attesters.remove.mutationOptions({ onSuccess: refresh }));
  return (
    <ConfirmAction
      target={target}
      action={remove}
      input={(attester) => ({ address: attester.address })}
      done={(attester) => `Address ${attester.address} removed.`}
      onClose={onClose}
      title="Remove this address?"
      confirmLabel="Remove address"
    >
      <p>
        <code>{target?.address}</code> will no longer sign for this account: its signed requests are refused from now
        on. Attestations it signed before stay on chain and keep naming it.
      </p>
    </ConfirmAction>
  );
}
