import { useState, type FormEvent } from 'react';
import { Messages } from '../../components/messages.tsx';
import { authClient } from '../../lib/auth.ts';
import { authErrorMessage } from '../../lib/errors.ts';

export function PasswordForm() {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [repeat, setRepeat] = useState('');
  const [revokeOtherSessions, setRevokeOthers] = useState(true);
  const [error, setError] = useState('');
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone('');
    if (newPassword !== repeat) {
      setError('The new password and its repetition differ.');
      return;
    }
    setError('');
    setBusy(true);
    const result = await authClient.changePassword({ currentPassword, newPassword, revokeOtherSessions });
    setBusy(false);
    if (result.error) {
      setError(authErrorMessage(result.error));
      return;
    }
    setCurrent('');
    setNew('');
    setRepeat('');
    setDone(revokeOtherSessions ? 'Password changed; your other sessions are signed out.' : 'Password changed.');
  }

  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <form className="stack" onSubmit={submit}>
        <label>
          Current password
          <input
            type="password"
            required
            autoComplete="current-password"
            value={currentPassword}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </label>
        <label>
          New password
          <input
            type="password"
            required
            minLength={10}
            autoComplete="new-password"
            value={newPassword}
            onChange={(e) => setNew(e.target.value)}
          />
          <span className="hint">At least 10 characters.</span>
        </label>
        <label>
          Repeat the new password
          <input
            type="password"
            required
            minLength={10}
            autoComplete="new-password"
            value={repeat}
            onChange={(e) => setRepeat(e.target.value)}
          />
        </label>
        <label className="check">
          <input type="checkbox" checked={revokeOtherSessions} onChange={(e) => setRevokeOthers(e.target.checked)} />
          Sign out my other sessions
        </label>
        <p className="actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Changing…' : 'Change password'}
          </button>
        </p>
        <Messages error={error} success={done} />
      </form>
    </section>
  );
}
