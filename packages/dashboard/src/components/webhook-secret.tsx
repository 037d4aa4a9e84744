import { useId } from 'react';
import { CopyButton, SecretValue } from './copy.tsx';

interface WebhookSecretProps {
  title: string;
  secret: string;
  standardWebhooksSecret: string;
  /** What the page says about the previous secret (a rotation), if anything. */
  note?: string;
  onDone(): void;
}

/** A webhook secret shown once, in both forms: hex (the X-Service-Signature key) and Standard Webhooks' whsec_. */
export function WebhookSecretOnce({ title, secret, standardWebhooksSecret, note, onDone }: WebhookSecretProps) {
  const titleId = useId();
  return (
    <section className="secret" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      <p>
        <strong>Copy it now: it will not be shown again.</strong> Store it somewhere safe, such as a secrets manager.
      </p>
      {note ? <p>{note}</p> : null}
      <h3>Secret (hex)</h3>
      <p className="muted small">
        The HMAC key of <code>X-Service-Signature</code>, and the 32 bytes behind <code>webhook-signature</code>.
      </p>
      <SecretValue value={secret} />
      <p className="actions">
        <CopyButton value={secret} label="Copy the hex secret" />
      </p>
      <h3>Standard Webhooks form</h3>
      <p className="muted small">
        The same bytes as the <code>standardwebhooks</code> libraries take them.
      </p>
      <SecretValue value={standardWebhooksSecret} />
      <p className="actions">
        <CopyButton value={standardWebhooksSecret} label="Copy the whsec_ secret" />
        <button type="button" onClick={onDone}>
          I have stored it
        </button>
      </p>
    </section>
  );
}
