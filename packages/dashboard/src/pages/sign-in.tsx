import { useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { EmailField, PasswordField } from '../components/credential-fields.tsx';
import { Messages } from '../components/messages.tsx';
import { Submit } from '../components/submit.tsx';
import { useAuthCall } from '../lib/auth-call.ts';
import { authClient } from '../lib/auth.ts';
import { authErrorMessage } from '../lib/errors.ts';
import { useTitle } from '../lib/title.ts';
import { useTRPC } from '../lib/trpc.ts';
import { BASE } from '../routes.tsx';
import { logFailure, unawaited } from '../lib/unawaited.ts';

const route = getRouteApi('/_public/sign-in');

/** Email + password or a passkey; afterwards back to the page that asked for a session. */
export function SignIn() {
  useTitle('Sign in');
  const { next } = route.useSearch();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const trpc = useTRPC();
  const signup = useQuery(trpc.dashboard.session.signup.queryOptions());
  const mail = useQuery(trpc.dashboard.mail.available.queryOptions());
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { error, busy, run } = useAuthCall();

  function signedIn() {
    queryClient.clear();
    // `next` is a path under the dashboard (its search schema refuses any other)
    navigate({ href: `${BASE}/${next}`, replace: true }).catch(logFailure);
  }

  async function withPassword(event: FormEvent) {
    event.preventDefault();
    const ok = await run(
      () => authClient.signIn.email({ email, password }),
      (error) =>
        error.status === 401
          ? 'The email or password is not right. Check both and try again.'
          : authErrorMessage(error),
    );
    if (ok) signedIn();
  }

  async function withPasskey() {
    const ok = await run(
      () => authClient.signIn.passkey(),
      (error) =>
        error.status === 429
          ? authErrorMessage(error)
          : `Passkey sign-in did not complete: ${error.message ?? 'the browser or the authenticator refused'}.`,
    );
    if (ok) signedIn();
  }

  return (
    <>
      <h1>Sign in</h1>
      <form onSubmit={unawaited(withPassword)} className="stack">
        <EmailField name="email" autoComplete="username webauthn" value={email} onChange={setEmail} />
        <PasswordField kind="current" name="password" value={password} onChange={setPassword} />
        <p className="actions">
          <Submit busy={busy} working="Signing in…">
            Sign in
          </Submit>
        </p>
      </form>
      <p className="or">or</p>
      <p>
        <button type="button" className="secondary wide" onClick={unawaited(withPasskey)} disabled={busy}>
          Sign in with a passkey
        </button>
      </p>
      <Messages error={error} />
      {mail.data?.mail ? (
        <p>
          <Link to="/reset-password">Forgot your password?</Link>
        </p>
      ) : null}
      {signup.data?.signup === 'open' ? (
        <p className="muted">
          New here? <Link to="/sign-up">Create an account</Link>, or open the invitation link you were given.
        </p>
      ) : (
        <p className="muted">
          New here? Open the invitation or setup link you were given: it lets you create your sign-in.
        </p>
      )}
    </>
  );
}
