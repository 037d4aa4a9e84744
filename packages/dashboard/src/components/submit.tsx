interface SubmitProps {
  /** The form's call is running: the button is disabled and says `working`. */
  busy: boolean;
  working: string;
  children: string;
}

/** A form's submit button, disabled while its call runs and saying so. */
export function Submit({ busy, working, children }: SubmitProps) {
  return (
    <button type="submit" disabled={busy}>
      {busy ? working : children}
    </button>
  );
}
