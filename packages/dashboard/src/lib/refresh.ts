import { useQueryClient, type QueryFilters } from '@tanstack/react-query';

/**
 * Refetches the queries the filters match (`trpc.x.pathFilter()`, `trpc.x.queryFilter(input)`), for a mutation's
 * onSuccess after it changed what they show; returning the promise makes the mutation settle once they are fresh.
 * A query not on screen is marked stale, so its page loads it anew however recent its copy (queries are otherwise
 * fresh for a while: lib/trpc.ts).
 */
export function useRefresh(...filters: QueryFilters[]): () => Promise<void> {
  const queryClient = useQueryClient();
  return async () => {
    await Promise.all(filters.map((filter) => queryClient.invalidateQueries(filter)));
  };
}
