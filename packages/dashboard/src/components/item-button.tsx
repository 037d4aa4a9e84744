import type { ButtonHTMLAttributes } from 'react';

interface ItemButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'type' | 'className' | 'children'> {
  /** What it does, as shown: `Revoke`. */
  label: string;
  /** Which item, for screen readers only (the row or card shows it already): `Revoke newsroom-ci`. */
  item: string;
  look?: 'danger' | 'secondary';
}

/** A small button acting on one item of a table or list, named with that item so its name is unique on the page. */
export function ItemButton({ label, item, look = 'danger', ...rest }: ItemButtonProps) {
  return (
    <button type="button" className={`${look} small`} {...rest}>
      {label}
      <span className="visually-hidden"> {item}</span>
    </button>
  );
}
