import type { AppRouter } from '@attestation-service/server/router';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, type TRPCClient } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { errorStatus } from './errors.ts';
import { isPublicPath, navigate, routePath } from './router.tsx';

const ACCOUNT_KEY = 'dashboard.account';

let currentAccountId: string | null = readStoredAccount();

function readStoredAccount(): string | null {
  try {
    return window.localStorage.getItem(ACCOUNT_KEY);
  } catch {
    return null;
  }
}

/** The account every call acts on (the `x-account-id` header); null lets the server pick the first. */
export function accountId(): string | null {
  return currentAccountId;
}

/** Switches the account calls act on, remembered for the next visit; the caller drops the cached data. */
export function selectAccount(id: string | null): void {
  currentAccountId = id;
  try {
    if (id) window.localStorage.setItem(ACCOUNT_KEY, id);
    else window.localStorage.removeItem(ACCOUNT_KEY);
  } catch {
    // private browsing without storage: the choice lasts for this page only
  }
}

/** A 401 anywhere means the session is gone: back to sign-in, returning here afterwards. */
function onError(error: unknown): void {
  if (errorStatus(error) !== 401) return;
  const path = routePath(window.location.pathname);
  if (isPublicPath(path)) return;
  queryClient.clear();
  navigate(`sign-in?next=${encodeURIComponent(path + window.location.search)}`, { replace: true });
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

type Client = TRPCClient<AppRouter>;
type Dashboard = Client['dashboard'];
/** What a dashboard query answers, by procedure (`Out<'keys', 'list'>`). */
export type Out<
  Feature extends keyof Dashboard,
  Proc extends keyof Dashboard[Feature],
> = Dashboard[Feature][Proc] extends { query: (...args: never[]) => Promise<infer R> }
  ? R
  : Dashboard[Feature][Proc] extends { mutate: (...args: never[]) => Promise<infer R> }
    ? R
    : never;
