import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Messages } from '../components/messages.tsx';
import { authClient } from '../lib/auth.ts';
import { authErrorMessage } from '../lib/errors.ts';
import { Link, navigate } from '../lib/router.tsx';
import { useTitle } from '../lib/title.ts';
import { selectAccount, useTRPC } from '../lib/trpc.ts';

/** Open sign-up (DASHBOARD_SIGNUP=open): a sign-in and a new account on the free plan. */
export default function SignUp() {
  useTitle('Create an account');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // a 401 only means "no sign-in yet"
  const me = useQuery(trpc.dashboard.session.me.queryOptions());
  // known without a session: a signed-out visitor of a closed service sees no form it would refuse
  const signup = useQuery(trpc.dashboard.session.signup.queryOptions());
  const create = useMutation(trpc.dashboard.accounts.create.mutationOptions());
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [accountName, setAccountName] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const signedIn = me.isError ? null : (me.data?.user ?? null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError('');
    setBusy(true);
    if (!signedIn) {
      const result = await authClient.signUp.email({ name, email, password });
      if (result.error) {
        setBusy(false);
        setError(authErrorMessage(result.error));
        return;
      }
      // signed in now: a retry after a refused account name must not sign up twice
      void me.refetch();
    }
    create.mutate(
      { name: accountName },
      {
        onSuccess: ({ accountId }) => {
          selectAccount(accountId);
          queryClient.clear();
          navigate('', { replace: true });
        },
        onSettled: () => setBusy(false),
      },
    );
  }

  if (signup.data?.signup === 'closed') {
    return (
      <>
        <h1>Create an account</h1>
        <p>This service creates accounts by invitation only. Ask an account owner or the operator for a link.</p>
        <p>
          <Link to="">Back to the dashboard</Link>
        </p>
      </>
    );
  }

  return (
    <>
      <h1>Create an account</h1>
      <p>A new account starts on the free plan; you will be its owner.</p>
      <form onSubmit={submit} className="stack">
        {signedIn ? (
          <p>Signed in as {signedIn.email}.</p>
        ) : (
          <>
            <label>
              Your name
              <input required autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
            </label>
            <label>
              Email
              <input
                type="email"
                required
                autoComplete="username"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            </label>
            <label>
              Password
              <input
                type="password"
                required
                minLength={10}
                autoComplete="new-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
              <span className="hint">At least 10 characters.</span>
            </label>
          </>
        )}
        <label>
          Account name
          <input required maxLength={100} value={accountName} onChange={(e) => setAccountName(e.target.value)} />
        </label>
        <p className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create the account'}
          </button>
        </p>
        <Messages error={error || create.error} />
      </form>
      {signedIn ? null : (
        <p>
          Already have a sign-in? <Link to="sign-in">Sign in</Link>.
        </p>
      )}
    </>
  );
}
