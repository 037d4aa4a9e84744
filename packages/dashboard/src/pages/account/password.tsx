import { newPasswordSchema } from '@attestation-service/server/rules';
import { useState, type FormEvent } from 'react';
import { PasswordField } from '../../components/credential-fields.tsx';
import { Messages } from '../../components/messages.tsx';
import { Submit } from '../../components/submit.tsx';
import { useAuthCall } from '../../lib/auth-call.ts';
import { authClient } from '../../lib/auth.ts';
import { check } from '../../lib/validate.ts';
import { unawaited } from '../../lib/unawaited.ts';

export function PasswordForm() {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [repeat, setRepeat] = useState('');
  const [revokeOtherSessions, setRevokeOthers] = useState(true);
  const [done, setDone] = useState('');
  const { error, setError, busy, run } = useAuthCall();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone('');
    const chosen = check(newPasswordSchema, newPassword);
    if (!chosen.ok) {
      setError(chosen.problem);
      return;
    }
    if (newPassword !== repeat) {
      setError('The new password and its repetition differ.');
      return;
    }
    if (!(await run(() => authClient.changePassword({ currentPassword, newPassword, revokeOtherSessions })))) return;
    setCurrent('');
    setNew('');
    setRepeat('');
    setDone(revokeOtherSessions ? 'Password changed; your other sessions are signed out.' : 'Password changed.');
  }

  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <form className="stack" onSubmit={unawaited(submit)}>
        <PasswordField kind="current" label="Current password" value={currentPassword} onChange={setCurrent} />
        <PasswordField kind="new" label="New password" value={newPassword} onChange={setNew} />
        <PasswordField kind="new" label="Repeat the new password" hint={false} value={repeat} onChange={setRepeat} />
        <label className="check">
          <input type="checkbox" checked={revokeOtherSessions} onChange={(e) => setRevokeOthers(e.target.checked)} />
          Sign out my other sessions
        </label>
        <p className="actions">
          <Submit busy={busy} working="Changing…">
            Change password
          </Submit>
        </p>
        <Messages error={error} success={done} />
      </form>
    </section>
  );
}
