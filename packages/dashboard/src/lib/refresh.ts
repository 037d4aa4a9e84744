import { useQueryClient, type QueryKey } from '@tanstack/react-query';

/**
 * Refetches the queries under `queryKey`, for a mutation's onSuccess after it changed what they show; returning the
 * promise makes the mutation settle once the list is fresh.
 */
export function useRefresh(queryKey: QueryKey): () => Promise<void> {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey });
}
