import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { queryClient, trpcClient, TRPCProvider, whenSignedOut } from './lib/trpc.ts';
import { onPublicPage, router } from './routes.tsx';
import { logFailure } from './lib/unawaited.ts';

// a 401 anywhere means the session is gone: back to sign-in, returning to this page afterwards
whenSignedOut(() => {
  if (onPublicPage()) return false;
  const here = router.latestLocation;
  router.navigate({ to: '/sign-in', search: { next: here.href.replace(/^\/+/, '') }, replace: true }).catch(logFailure);
  return true;
});

/** The whole app: providers, then the page of the current address. */
export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <RouterProvider router={router} />
      </TRPCProvider>
    </QueryClientProvider>
  );
}
