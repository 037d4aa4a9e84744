import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Messages } from '../components/messages.tsx';
import { authClient } from '../lib/auth.ts';
import { authErrorMessage } from '../lib/errors.ts';
import { Link, navigate, useLocation } from '../lib/router.tsx';
import { useTitle } from '../lib/title.ts';
import { useTRPC } from '../lib/trpc.ts';

/** Email + password or a passkey; afterwards back to the page that asked for a session. */
export function SignIn() {
  useTitle('Sign in');
  const { search } = useLocation();
  const queryClient = useQueryClient();
  const trpc = useTRPC();
  const signup = useQuery(trpc.dashboard.session.signup.queryOptions());
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  function signedIn() {
    queryClient.clear();
    // `next` is a path under the dashboard (navigate never leaves it)
    navigate(search.get('next') ?? '', { replace: true });
  }

  async function withPassword(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError('');
    const result = await authClient.signIn.email({ email, password });
    setBusy(false);
    if (result.error) {
      setError(
        result.error.status === 401
          ? 'The email or password is not right. Check both and try again.'
          : authErrorMessage(result.error),
      );
      return;
    }
    signedIn();
  }

  async function withPasskey() {
    setBusy(true);
    setError('');
    const result = await authClient.signIn.passkey();
    setBusy(false);
    if (result.error) {
      setError(
        result.error.status === 429
          ? authErrorMessage(result.error)
          : `Passkey sign-in did not complete: ${result.error.message ?? 'the browser or the authenticator refused'}.`,
      );
      return;
    }
    signedIn();
  }

  return (
    <>
      <h1>Sign in</h1>
      <form onSubmit={withPassword} className="stack">
        <label>
          Email
          <input
            type="email"
            name="email"
            autoComplete="username webauthn"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <p className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </p>
      </form>
      <p className="or">or</p>
      <p>
        <button type="button" className="secondary wide" onClick={withPasskey} disabled={busy}>
          Sign in with a passkey
        </button>
      </p>
      <Messages error={error} />
      {signup.data?.signup === 'open' ? (
        <p className="muted">
          New here? <Link to="sign-up">Create an account</Link>, or open the invitation link you were given.
        </p>
      ) : (
        <p className="muted">
          New here? Open the invitation or setup link you were given: it lets you create your sign-in.
        </p>
      )}
    </>
  );
}
