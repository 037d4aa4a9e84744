import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useAuthCall } from '../lib/auth-call.ts';
import { authClient } from '../lib/auth.ts';
import { useSession } from '../lib/session.tsx';
import { useTRPC } from '../lib/trpc.ts';
import { unawaited } from '../lib/unawaited.ts';

/** Until the signed-in person's address is confirmed (and mail goes out): why it matters, and a new link. */
export function VerifyBanner() {
  const trpc = useTRPC();
  const { me } = useSession();
  const status = useQuery(trpc.dashboard.mail.status.queryOptions());
  const [sent, setSent] = useState(false);
  const { error, busy, run } = useAuthCall();
  if (!status.data?.mail || status.data.emailVerified) return null;

  async function resend() {
    const callbackURL = `${window.location.origin}/dashboard/verify-email`;
    if (await run(() => authClient.sendVerificationEmail({ email: me.user.email, callbackURL }))) setSent(true);
  }

  return (
    <div className="note warn" role="region" aria-label="Confirm your address">
      <p>
        Confirm your address <strong>{me.user.email}</strong> with the link we mailed: opening an account, minting keys,
        inviting people, invitations to it and notifications wait for it.{' '}
        {sent ? (
          <span role="status">A new link is on its way.</span>
        ) : (
          <button type="button" className="secondary" onClick={unawaited(resend)} disabled={busy}>
            Send the link again
          </button>
        )}
      </p>
      {error ? <p role="alert">{error}</p> : null}
    </div>
  );
}
