import { accountNameSchema } from '@attestation-service/server/rules';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { Messages } from '../components/messages.tsx';
import { Submit } from '../components/submit.tsx';
import { selectAccount, useTRPC, type Outputs } from '../lib/trpc.ts';
import { check } from '../lib/validate.ts';
import { logFailure } from '../lib/unawaited.ts';

type Invitation = Outputs['invitations']['get'];

/** The setup link's choice: a new account (`new`), or the id of an account the CLI opened. */
const NEW_ACCOUNT = 'new';

interface AcceptProps {
  token: string;
  invitation: Invitation;
  who: string;
  onSignOut: () => void;
}

/**
 * Signed in: accept. The setup link asks for the new account's name, or lets its opener take over an account the
 * operator's CLI opened (with its keys) that nobody is a member of yet.
 */
export function Accept({ token, invitation, who, onSignOut }: AcceptProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [accountName, setAccountName] = useState('');
  const [choice, setChoice] = useState(NEW_ACCOUNT);
  const [invalid, setInvalid] = useState('');
  const accept = useMutation(trpc.dashboard.invitations.accept.mutationOptions());
  const setup = invitation.kind === 'setup';
  const adopting = setup && choice !== NEW_ACCOUNT;

  function submit(event: FormEvent) {
    event.preventDefault();
    const named = setup && !adopting ? check(accountNameSchema, accountName) : undefined;
    setInvalid(named?.problem ?? '');
    if (named && !named.ok) return;
    const target = adopting ? { accountId: choice } : named ? { accountName: named.data } : {};
    accept.mutate(
      { token, ...target },
      {
        onSuccess: (result) => {
          if (invitation.kind !== 'support') selectAccount(result.accountId);
          queryClient.clear();
          navigate({ to: invitation.kind === 'support' ? '/support' : '/', replace: true }).catch(logFailure);
        },
      },
    );
  }

  return (
    <form onSubmit={submit} className="stack" aria-labelledby="accept-title">
      <h2 id="accept-title">{setup ? 'Step 2 of 2: choose the account' : 'Step 2 of 2: accept'}</h2>
      <p>
        Signed in as {who}.{' '}
        <button type="button" className="link" onClick={onSignOut}>
          Not you? Sign out
        </button>
      </p>
      {setup && invitation.adoptable.length > 0 ? (
        <fieldset className="choice">
          <legend>Which account will you own?</legend>
          <label className="check">
            <input
              type="radio"
              name="account"
              checked={choice === NEW_ACCOUNT}
              onChange={() => setChoice(NEW_ACCOUNT)}
            />
            A new account
          </label>
          {invitation.adoptable.map((account) => (
            <label className="check" key={account.id}>
              <input
                type="radio"
                name="account"
                checked={choice === account.id}
                onChange={() => setChoice(account.id)}
              />
              {account.name} <span className="hint">(opened with the command line; its keys come with it)</span>
            </label>
          ))}
        </fieldset>
      ) : null}
      {setup && !adopting ? (
        <label>
          Account name
          <input required value={accountName} onChange={(e) => setAccountName(e.target.value)} />
          <span className="hint">Your organisation or project, as your team will see it.</span>
        </label>
      ) : null}
      <p className="actions">
        <Submit busy={accept.isPending} working={adopting ? 'Setting up…' : setup ? 'Creating…' : 'Accepting…'}>
          {adopting ? 'Become its owner' : setup ? 'Create the account' : 'Accept the invitation'}
        </Submit>
      </p>
      <Messages error={invalid || accept.error} />
    </form>
  );
}
