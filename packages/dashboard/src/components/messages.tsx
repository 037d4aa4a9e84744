import type { ReactNode } from 'react';
import { errorMessage } from '../lib/errors.ts';

/**
 * A form's or page's outcome, announced by screen readers: the polite region stays mounted (a region added with its
 * text is often not read), errors use role=alert.
 */
export function Messages({ error, success }: { error?: unknown; success?: ReactNode }) {
  return (
    <>
      <div className="live" aria-live="polite">
        {success ? <p className="note ok">{success}</p> : null}
      </div>
      {error ? (
        <p className="note bad" role="alert">
          {typeof error === 'string' ? error : errorMessage(error)}
        </p>
      ) : null}
    </>
  );
}

/** What a list shows while its first page loads, or when it failed. */
export function QueryState({ pending, error, label }: { pending: boolean; error: unknown; label: string }) {
  if (error) return <Messages error={error} />;
  if (pending)
    return (
      <p className="muted" role="status">
        Loading {label}…
      </p>
    );
  return null;
}
