import { useLayoutEffect, useRef, type ReactNode } from 'react';

interface DataTableProps {
  /** The scrolling region's name: how a screen reader (and a test) finds the table. */
  label: string;
  /** The column headings; a `false` one is left out (a column only some roles see). */
  columns: readonly (string | false)[];
  /** Columns of figures: right-aligned, their headings too, so each figure sits under its own heading. */
  numeric?: readonly string[];
  /** On a narrow screen each row becomes a card of labelled fields (the default); `false` keeps a table of figures. */
  stack?: boolean;
  /** A heading for screen readers only (the page's own heading usually names the table already). */
  caption?: string;
  className?: string;
  /** The body's rows. */
  children: ReactNode;
}

/** The column of a row's buttons: on a card they need no label (the audit log's "Action" is data, and labelled). */
const ACTION_COLUMN = 'Action';

/**
 * A table; on a narrow screen its rows become cards (every action in view, no sideways scrolling), else it scrolls
 * sideways. The scrolling region is focusable and named, so keyboard users can scroll it too (axe:
 * scrollable-region-focusable).
 */
export function DataTable({
  label,
  columns,
  numeric = [],
  stack = true,
  caption,
  className,
  children,
}: DataTableProps) {
  const body = useRef<HTMLTableSectionElement>(null);
  const shown = columns.filter((column): column is string => column !== false);

  // each cell carries its column's name for the card layout; rows come from the page, so label them after each render
  useLayoutEffect(() => {
    if (!stack || !body.current) return;
    for (const row of Array.from(body.current.rows)) {
      Array.from(row.cells).forEach((cell, i) => {
        const column = shown[i];
        const buttons = column === ACTION_COLUMN && cell.querySelector('button, a') !== null;
        if (cell.tagName === 'TD' && column && !buttons) cell.dataset.label = column;
      });
    }
  });

  return (
    <div className={stack ? 'table-wrap stacked' : 'table-wrap'} tabIndex={0} role="region" aria-label={label}>
      <table className={className}>
        {caption ? <caption className="visually-hidden">{caption}</caption> : null}
        <thead>
          <tr>
            {shown.map((column) => (
              <th key={column} scope="col" className={numeric.includes(column) ? 'num' : undefined}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody ref={body}>{children}</tbody>
      </table>
    </div>
  );
}
