import type { AppRouter } from '@attestation-service/server/router';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, type TRPCClient } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { useSyncExternalStore } from 'react';
import { errorStatus } from './errors.ts';

/** What each dashboard procedure answers (`Outputs['keys']['list']`). */
export type Outputs = inferRouterOutputs<AppRouter>['dashboard'];

const ACCOUNT_KEY = 'dashboard.account';

let currentAccountId: string | null = readStoredAccount();
const accountListeners = new Set<() => void>();

function readStoredAccount(): string | null {
  try {
    return window.localStorage.getItem(ACCOUNT_KEY);
  } catch {
    return null;
  }
}

/** The account every call acts on (the `x-account-id` header); null lets the server pick the first. */
function accountId(): string | null {
  return currentAccountId;
}

/** Switches the account calls act on, remembered for the next visit; the caller drops the cached data. */
export function selectAccount(id: string | null): void {
  if (id === currentAccountId) return;
  currentAccountId = id;
  try {
    if (id) window.localStorage.setItem(ACCOUNT_KEY, id);
    else window.localStorage.removeItem(ACCOUNT_KEY);
  } catch {
    // private browsing without storage: the choice lasts for this page only
  }
  for (const listener of accountListeners) listener();
}

function subscribeAccount(listener: () => void): () => void {
  accountListeners.add(listener);
  return () => accountListeners.delete(listener);
}

/** The account calls act on, re-rendering when it is switched. */
export function useSelectedAccount(): string | null {
  return useSyncExternalStore(subscribeAccount, accountId);
}

let signedOut: () => boolean = () => false;

/**
 * What to do when a call answers 401 (the session is gone): the app goes to sign-in and answers true, or false on a
 * page a signed-out person may see, where a 401 is expected.
 */
export function whenSignedOut(handler: () => boolean): void {
  signedOut = handler;
}

function onError(error: unknown): void {
  if (errorStatus(error) !== 401) return;
  if (signedOut()) queryClient.clear();
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // a 4xx will not change on retry; a network blip or 5xx may
      retry: (failures, error) => (errorStatus(error) ?? 500) >= 500 && failures < 2,
    },
  },
});

export const trpcClient: TRPCClient<AppRouter> = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: '/trpc',
      headers: (): Record<string, string> => (currentAccountId ? { 'x-account-id': currentAccountId } : {}),
    }),
  ],
});

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
