import { unawaited } from '../lib/unawaited.ts';

/** What `useKeysetPages` answers that the button needs. */
interface Pages {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage(): Promise<unknown>;
}

/** The "Load more" button under a keyset list, while there is a next page. */
export function LoadMore({ pages }: { pages: Pages }) {
  if (!pages.hasNextPage) return null;
  return (
    <p>
      <button
        type="button"
        className="secondary"
        onClick={unawaited(() => pages.fetchNextPage())}
        disabled={pages.isFetchingNextPage}
      >
        {pages.isFetchingNextPage ? 'Loading…' : 'Load more'}
      </button>
    </p>
  );
}
