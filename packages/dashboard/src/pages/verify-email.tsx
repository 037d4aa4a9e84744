import { getRouteApi, Link } from '@tanstack/react-router';
import { useTitle } from '../lib/title.ts';

const route = getRouteApi('/_public/verify-email');

/** Where the confirmation mail's link lands (better-auth adds `?error=` when the link did not work). */
export default function VerifyEmail() {
  useTitle('Confirm your address');
  const failed = route.useSearch().error;
  if (failed)
    return (
      <>
        <h1>This link did not work</h1>
        <p>
          It has expired or was changed on the way. Sign in: the dashboard offers to send a new one until your address
          is confirmed.
        </p>
        <p>
          <Link to="/sign-in">Sign in</Link>
        </p>
      </>
    );
  return (
    <>
      <h1>Address confirmed</h1>
      <p role="status">Thank you: invitations to this address and notifications can reach you now.</p>
      <p>
        <Link to="/">Go to the dashboard</Link>
      </p>
    </>
  );
}
