import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Address } from '../components/address.tsx';
import { ConfirmDialog } from '../components/confirm.tsx';
import { WebhookSecretOnce } from '../components/webhook-secret.tsx';
import { when } from '../lib/format.ts';
import { useRefresh } from '../lib/refresh.ts';
import { useTRPC, type Outputs } from '../lib/trpc.ts';

type Webhook = Outputs['webhooks']['list'][number];
type Rotated = Outputs['webhooks']['rotateSecret'];

/** How long the previous secret may keep signing: the choices offered (the API takes 0–168 hours). */
const WINDOWS = [
  { hours: 24, label: '24 hours' },
  { hours: 1, label: '1 hour' },
  { hours: 72, label: '3 days' },
  { hours: 168, label: '7 days' },
  { hours: 0, label: 'Retire it now (a leaked secret)' },
];

/** The secret column: a rotation's window while it lasts. */
export function RotationState({ hook }: { hook: Webhook }) {
  if (!hook.rotation) return <span className="muted">One secret</span>;
  return <span>Previous secret signs until {when(hook.rotation.previousSecretExpiresAt)}</span>;
}

/**
 * Rotation of one subscription's secret: the window chosen in a dialog, then the new secret shown once (both forms).
 * While the window lasts deliveries carry both signatures, so the receiver can switch without missing one.
 */
export function RotateSecret({ target, onClose }: { target: Webhook | null; onClose(message?: string): void }) {
  const trpc = useTRPC();
  const [hours, setHours] = useState(24);
  const [shown, setShown] = useState<{ url: string; rotated: Rotated } | null>(null);
  const refresh = useRefresh(trpc.dashboard.webhooks.list.queryFilter());
  const rotate = useMutation(trpc.dashboard.webhooks.rotateSecret.mutationOptions({ onSuccess: refresh }));

  function close() {
    rotate.reset();
    setHours(24);
    onClose();
  }

  return (
    <>
      {shown ? (
        <WebhookSecretOnce
          title={`New signing secret for ${shown.url}`}
          secret={shown.rotated.secret}
          standardWebhooksSecret={shown.rotated.standardWebhooksSecret}
          note={
            shown.rotated.rotation
              ? `The previous secret keeps signing too until ${when(shown.rotated.rotation.previousSecretExpiresAt)}.`
              : 'The previous secret no longer signs.'
          }
          onDone={() => setShown(null)}
        />
      ) : null}
      <ConfirmDialog
        open={target !== null}
        title="Rotate the signing secret?"
        confirmLabel="Rotate"
        busy={rotate.isPending}
        error={rotate.error}
        onCancel={close}
        onConfirm={() => {
          if (!target) return;
          rotate.mutate(
            { id: target.id, previousSecretTtlHours: hours },
            {
              onSuccess: (rotated) => {
                setShown({ url: target.url, rotated });
                close();
              },
            },
          );
        }}
      >
        <p>
          <Address value={target?.url ?? ''} /> gets a new secret, shown once. Until your receiver has it, deliveries
          are signed with the previous secret too.
        </p>
        <label>
          Previous secret keeps signing for
          <select value={hours} onChange={(e) => setHours(Number(e.target.value))}>
            {WINDOWS.map((w) => (
              <option key={w.hours} value={w.hours}>
                {w.label}
              </option>
            ))}
          </select>
        </label>
      </ConfirmDialog>
    </>
  );
}

/** Sends one `webhook.test` event to the subscription; the page says which delivery to look for. */
export function useSendTest(onSent: (message: string) => void) {
  const trpc = useTRPC();
  return useMutation(
    trpc.dashboard.webhooks.sendTest.mutationOptions({
      onSuccess: (sent) => onSent(`Test event queued: delivery ${sent.deliveryId}.`),
    }),
  );
}
