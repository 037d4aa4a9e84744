import { useId, useState } from 'react';
import { unawaited } from '../lib/unawaited.ts';

/** Copies a value to the clipboard, saying so (politely) for screen readers. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
  }
  return (
    <span className="copy">
      <button type="button" className="secondary" onClick={unawaited(copy)}>
        {label}
      </button>
      <span aria-live="polite" className="muted small">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </span>
  );
}

/** A value to copy by hand or with the button (a secret, an invitation link): selectable at a click, focusable. */
export function SecretValue({ value }: { value: string }) {
  return (
    <p className="secret-value">
      <code tabIndex={0}>{value}</code>
    </p>
  );
}

/** A secret shown once (a new key, a webhook secret): the value, a copy button and the warning. */
export function SecretOnce({ title, value, onDone }: { title: string; value: string; onDone: () => void }) {
  const titleId = useId();
  return (
    <section className="secret" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      <p>
        <strong>Copy it now: it will not be shown again.</strong> Store it somewhere safe, such as a secrets manager.
      </p>
      <SecretValue value={value} />
      <p className="actions">
        <CopyButton value={value} />
        <button type="button" onClick={onDone}>
          I have stored it
        </button>
      </p>
    </section>
  );
}
