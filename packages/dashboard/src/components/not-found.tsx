import { Link } from '@tanstack/react-router';
import { PlainShell } from './shell.tsx';

/** An address under the dashboard that no page answers. */
export function NotFound() {
  return (
    <PlainShell>
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. <Link to="/">Go to the overview</Link>.
      </p>
    </PlainShell>
  );
}
