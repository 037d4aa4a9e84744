import { newPasswordSchema } from '@attestation-service/server/rules';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useState, type FormEvent } from 'react';
import { EmailField, PasswordField } from '../components/credential-fields.tsx';
import { Messages } from '../components/messages.tsx';
import { Submit } from '../components/submit.tsx';
import { useAuthCall } from '../lib/auth-call.ts';
import { authClient } from '../lib/auth.ts';
import { useTitle } from '../lib/title.ts';
import { check } from '../lib/validate.ts';
import { unawaited } from '../lib/unawaited.ts';

const route = getRouteApi('/_public/reset-password');

/** "Forgot password?": asks for the reset mail, or, opened from that mail's link, sets the new password. */
export default function ResetPassword() {
  const { token } = route.useSearch();
  return token ? <NewPassword token={token} /> : <AskForMail />;
}

function AskForMail() {
  useTitle('Forgot password');
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState('');
  const { error, busy, run } = useAuthCall();

  async function submit(event: FormEvent) {
    event.preventDefault();
    // the same answer whether the address has a sign-in or not: it tells nobody which addresses do
    if (await run(() => authClient.requestPasswordReset({ email }))) {
      setSent(`If ${email} has a sign-in here, a link to choose a new password is on its way. It works for one hour.`);
    }
  }

  return (
    <>
      <h1>Forgot your password?</h1>
      <p>Give the email address you sign in with: we mail it a link to choose a new password.</p>
      <form onSubmit={unawaited(submit)} className="stack">
        <EmailField name="email" value={email} onChange={setEmail} />
        <p className="actions">
          <Submit busy={busy} working="Sending…">
            Mail me a link
          </Submit>
        </p>
        <Messages error={error} success={sent} />
      </form>
      <p className="muted">
        Remembered it? <Link to="/sign-in">Sign in</Link>.
      </p>
    </>
  );
}

function NewPassword({ token }: { token: string }) {
  useTitle('Choose a new password');
  const [newPassword, setNew] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const { error, setError, busy, run } = useAuthCall();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const chosen = check(newPasswordSchema, newPassword);
    if (!chosen.ok) {
      setError(chosen.problem);
      return;
    }
    if (newPassword !== repeat) {
      setError('The new password and its repetition differ.');
      return;
    }
    const ok = await run(
      () => authClient.resetPassword({ newPassword, token }),
      (failure) =>
        failure.status === 400
          ? 'This link was used already or has expired. Ask for a new one below.'
          : (failure.message ?? 'The password could not be changed.'),
    );
    if (ok) setDone(true);
  }

  if (done)
    return (
      <>
        <h1>Password changed</h1>
        <p role="status">Your new password works now; every session that was signed in is signed out.</p>
        <p>
          <Link to="/sign-in">Sign in</Link> with it.
        </p>
      </>
    );
  return (
    <>
      <h1>Choose a new password</h1>
      <form onSubmit={unawaited(submit)} className="stack">
        <PasswordField kind="new" label="New password" value={newPassword} onChange={setNew} />
        <PasswordField kind="new" label="Repeat the new password" hint={false} value={repeat} onChange={setRepeat} />
        <p className="actions">
          <Submit busy={busy} working="Saving…">
            Set the new password
          </Submit>
        </p>
        <Messages error={error} />
      </form>
      <p className="muted">
        <Link to="/reset-password">Ask for a new link</Link> · <Link to="/sign-in">Sign in</Link>
      </p>
    </>
  );
}
