const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dayOfMonth = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const numbers = new Intl.NumberFormat();

/** An ISO time as the reader's local date and time; an em dash for none. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** A `YYYY-MM-DD` (UTC) day, short: `Mon, Nov 17`. */
export function day(iso: string): string {
  const date = new Date(`${iso.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? iso : dayOfMonth.format(date);
}

export function count(n: number): string {
  return numbers.format(n);
}

/** A long hex value shortened for a table cell (the full value stays in the title and copy). */
export function short(hex: string, keep = 10): string {
  return hex.length > keep * 2 + 1 ? `${hex.slice(0, keep)}…${hex.slice(-6)}` : hex;
}
