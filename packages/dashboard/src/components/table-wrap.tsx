import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways on a narrow screen; focusable and named, so keyboard users can scroll it too
 * (axe: scrollable-region-focusable).
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
