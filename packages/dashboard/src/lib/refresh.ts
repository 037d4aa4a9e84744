import { useQueryClient, type QueryFilters } from '@tanstack/react-query';

/**
 * Refetches the queries a filter matches (`trpc.x.pathFilter()`, `trpc.x.queryFilter(input)`), for a mutation's onSuccess after it changed what they show; returning the
 * promise makes the mutation settle once the list is fresh.
 */
export function useRefresh(filter: QueryFilters): () => Promise<void> {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries(filter);
}
