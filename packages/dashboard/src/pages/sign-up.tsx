import { accountNameSchema } from '@attestation-service/server/rules';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { EmailField, NameField, PasswordField } from '../components/credential-fields.tsx';
import { Messages } from '../components/messages.tsx';
import { Submit } from '../components/submit.tsx';
import { useAuthCall } from '../lib/auth-call.ts';
import { signUpAndIn } from '../lib/auth.ts';
import { useTitle } from '../lib/title.ts';
import { selectAccount, useTRPC } from '../lib/trpc.ts';
import { check } from '../lib/validate.ts';
import { logFailure, unawaited } from '../lib/unawaited.ts';

/** Open sign-up (DASHBOARD_SIGNUP=open): a sign-in and a new account on the free plan. */
export default function SignUp() {
  useTitle('Create an account');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  // a 401 only means "no sign-in yet"
  const me = useQuery(trpc.dashboard.session.me.queryOptions());
  // known without a session: a signed-out visitor of a closed service sees no form it would refuse
  const signup = useQuery(trpc.dashboard.session.signup.queryOptions());
  const create = useMutation(trpc.dashboard.accounts.create.mutationOptions());
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [accountName, setAccountName] = useState('');
  // the address a sign-up just mailed a confirmation link to: opening an account waits for it
  const [mailedTo, setMailedTo] = useState('');
  const signUp = useAuthCall();
  const busy = signUp.busy || create.isPending;
  const signedIn = me.isError ? null : (me.data?.user ?? null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    signUp.setError('');
    // the account name is checked first: a name the service would refuse creates no sign-in either
    const account = check(accountNameSchema, accountName);
    if (!account.ok) {
      signUp.setError(account.problem);
      return;
    }
    if (!signedIn) {
      const signedUp = await signUp.run(
        () => signUpAndIn({ name, email, password }),
        // the sign-up's answer is the same for an address that has a sign-in: only the sign-in after it can fail
        () =>
          `We could not sign you in. If ${email} already has a sign-in here, sign in with its password or choose a ` +
          'new one from the sign-in page.',
      );
      if (!signedUp) return;
      // signed in now: a retry after a refused account name must not sign up twice
      me.refetch().catch(logFailure);
      setMailedTo(email);
      return;
    }
    create.mutate(
      { name: account.data },
      {
        onSuccess: ({ accountId }) => {
          selectAccount(accountId);
          queryClient.clear();
          navigate({ to: '/', replace: true }).catch(logFailure);
        },
      },
    );
  }

  if (signup.data?.signup === 'closed') {
    return (
      <>
        <h1>Create an account</h1>
        <p>This service creates accounts by invitation only. Ask an account owner or the operator for a link.</p>
        <p>
          <Link to="/">Back to the dashboard</Link>
        </p>
      </>
    );
  }

  return (
    <>
      <h1>Create an account</h1>
      <p>A new account starts on the free plan; you will be its owner.</p>
      <form onSubmit={unawaited(submit)} className="stack">
        {signedIn ? (
          <p>Signed in as {signedIn.email}.</p>
        ) : (
          <>
            <NameField value={name} onChange={setName} />
            <EmailField value={email} onChange={setEmail} />
            <PasswordField kind="new" value={password} onChange={setPassword} />
          </>
        )}
        <label>
          Account name
          <input required value={accountName} onChange={(e) => setAccountName(e.target.value)} />
        </label>
        <p className="actions">
          <Submit busy={busy} working="Creating…">
            Create the account
          </Submit>
        </p>
        {mailedTo ? (
          <p role="status">
            We mailed a confirmation link to {mailedTo}. Open it, then create the account here: a new account needs a
            confirmed address.
          </p>
        ) : null}
        <Messages error={signUp.error || create.error} />
      </form>
      {signedIn ? null : (
        <p>
          Already have a sign-in? <Link to="/sign-in">Sign in</Link>.
        </p>
      )}
    </>
  );
}
