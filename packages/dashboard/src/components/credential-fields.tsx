import { EMAIL_MAX, NAME_MAX, PASSWORD_MAX, PASSWORD_MIN } from '@attestation-service/server/rules';
import type { InputHTMLAttributes } from 'react';

type FieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> & {
  value: string;
  onChange(value: string): void;
};

/** A new sign-in's "Your name". */
export function NameField({ value, onChange, ...rest }: FieldProps) {
  return (
    <label>
      Your name
      <input
        required
        maxLength={NAME_MAX}
        autoComplete="name"
        {...rest}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}

/** The email a sign-in goes by: `username` to password managers, so they pair it with the password. */
export function EmailField({ value, onChange, ...rest }: FieldProps) {
  return (
    <label>
      Email
      <input
        type="email"
        required
        maxLength={EMAIL_MAX}
        autoComplete="username"
        {...rest}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}

interface PasswordFieldProps extends FieldProps {
  /** `new`: one being chosen (the minimum length, and password managers may suggest one); `current`: typed in. */
  kind: 'new' | 'current';
  label?: string;
  /** Say the minimum length under a new one (not under its repetition). */
  hint?: boolean;
}

/** A password field, new or current. */
export function PasswordField({
  kind,
  label = 'Password',
  hint = kind === 'new',
  value,
  onChange,
  ...rest
}: PasswordFieldProps) {
  const fresh = kind === 'new';
  return (
    <label>
      {label}
      <input
        type="password"
        required
        minLength={fresh ? PASSWORD_MIN : undefined}
        maxLength={PASSWORD_MAX}
        autoComplete={fresh ? 'new-password' : 'current-password'}
        {...rest}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      {fresh && hint ? <span className="hint">{`At least ${PASSWORD_MIN} characters.`}</span> : null}
    </label>
  );
}
