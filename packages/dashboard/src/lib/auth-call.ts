import { useState } from 'react';
import { authErrorMessage } from './errors.ts';

type AuthError = { message?: string | undefined; status: number };

/** A better-auth call behind a form: busy while it runs, its failure as a sentence for the form to show. */
export function useAuthCall() {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  /** Runs the call; whether it succeeded. `explain` words a failure (by default, authErrorMessage). */
  async function run(
    call: () => Promise<{ error: AuthError | null }>,
    explain: (error: AuthError) => string = authErrorMessage,
  ): Promise<boolean> {
    setBusy(true);
    setError('');
    const result = await call();
    setBusy(false);
    if (!result.error) return true;
    setError(explain(result.error));
    return false;
  }

  return { error, setError, busy, run };
}
