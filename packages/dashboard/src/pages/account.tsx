import { Address } from '../components/address.tsx';
import { useSession } from '../lib/session.tsx';
import { useTitle } from '../lib/title.ts';
import { Notifications } from './account/notifications.tsx';
import { Passkeys } from './account/passkeys.tsx';
import { PasswordForm } from './account/password.tsx';
import { Sessions } from './account/sessions.tsx';

/** The member's own security: password, passkeys, sessions (better-auth's endpoints, not the account's data). */
export default function Account() {
  useTitle('My account');
  const { me } = useSession();
  return (
    <>
      <h1>My account</h1>
      <p>
        Signed in as <strong>{me.user.name}</strong> (<Address value={me.user.email} />
        ).
      </p>
      <PasswordForm />
      <Passkeys />
      <Sessions />
      <Notifications />
    </>
  );
}
