import type { ReactNode } from 'react';

interface DataTableProps {
  /** The scrolling region's name: how a screen reader (and a test) finds the table. */
  label: string;
  /** The column headings; a `false` one is left out (a column only some roles see). */
  columns: readonly (string | false)[];
  /** A heading for screen readers only (the page's own heading usually names the table already). */
  caption?: string;
  className?: string;
  /** The body's rows. */
  children: ReactNode;
}

/**
 * A table that scrolls sideways on a narrow screen; the scrolling region is focusable and named, so keyboard users
 * can scroll it too (axe: scrollable-region-focusable).
 */
export function DataTable({ label, columns, caption, className, children }: DataTableProps) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table className={className}>
        {caption ? <caption className="visually-hidden">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((column) =>
              column === false ? null : (
                <th key={column} scope="col">
                  {column}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
