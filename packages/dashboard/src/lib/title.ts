import { useEffect } from 'react';

/** Names the page in the tab and for screen readers' page announcements. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Attestation Service dashboard`;
  }, [title]);
}
