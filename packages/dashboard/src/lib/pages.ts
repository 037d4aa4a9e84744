import { useInfiniteQuery } from '@tanstack/react-query';

/**
 * Keyset pages behind a "Load more" button: each page is the service's `{ data, nextCursor }`; `items` are the rows of
 * the pages loaded so far. Not tRPC's infiniteQueryOptions: it adds a `direction` field to the
 * input, which the service's strict input schemas refuse; the page is fetched with the plain client instead.
 */
export function useKeysetPages<Page extends { data: unknown[]; nextCursor: string | null }>(
  key: readonly unknown[],
  fetchPage: (cursor: string | undefined) => Promise<Page>,
) {
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const items = (query.data?.pages.flatMap((page) => page.data) ?? []) as Page['data'];
  return { ...query, items };
}

/** Only the cursor of a later page: the first page goes without one. */
export function withCursor<T extends object>(input: T, cursor: string | undefined): T & { cursor?: string } {
  return cursor ? { ...input, cursor } : input;
}
