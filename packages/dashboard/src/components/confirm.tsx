import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Messages } from './messages.tsx';

interface ConfirmProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: unknown;
  onConfirm(): void;
  onCancel(): void;
}

/**
 * A modal confirmation on the native <dialog>: showModal() traps focus and Escape cancels; focus starts on Cancel
 * (the safe choice) and returns to the control that opened it.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, busy, error, onConfirm, onCancel }: ConfirmProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      opener.current = document.activeElement;
      element.showModal();
      cancel.current?.focus();
    } else if (!open && element.open) {
      element.close();
    }
  }, [open]);

  function closed() {
    const target = opener.current;
    opener.current = null;
    if (target instanceof HTMLElement && target.isConnected) target.focus();
    if (open) onCancel();
  }

  return (
    <dialog ref={dialog} className="dialog" aria-labelledby={titleId} onClose={closed}>
      <h2 id={titleId}>{title}</h2>
      <div>{children}</div>
      <Messages error={error} />
      <p className="actions">
        <button type="button" ref={cancel} className="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </p>
    </dialog>
  );
}

/** What ConfirmAction needs of a mutation (tRPC's and better-auth's alike). */
interface Action<Input> {
  isPending: boolean;
  error: unknown;
  reset(): void;
  mutate(input: Input, options: { onSuccess: () => void }): void;
}

interface ConfirmActionProps<Target, Input> {
  /** The item to act on; the dialog is open while there is one. */
  target: Target | null;
  action: Action<Input>;
  /** The action's input for the item, and what the page says once it is done. */
  input(target: Target): Input;
  done(target: Target): string;
  /** Closed: cancelled (no message) or done. */
  onClose(message?: string): void;
  title: string;
  confirmLabel: string;
  children: ReactNode;
}

/** A ConfirmDialog that runs one mutation on one item; a cancel (or Escape) forgets a failed attempt's error. */
export function ConfirmAction<Target, Input>({
  target,
  action,
  input,
  done,
  onClose,
  ...dialog
}: ConfirmActionProps<Target, Input>) {
  function close(message?: string) {
    action.reset();
    onClose(message);
  }
  return (
    <ConfirmDialog
      {...dialog}
      open={target !== null}
      busy={action.isPending}
      error={action.error}
      onCancel={() => close()}
      onConfirm={() => {
        if (target !== null) action.mutate(input(target), { onSuccess: () => close(done(target)) });
      }}
    />
  );
}
