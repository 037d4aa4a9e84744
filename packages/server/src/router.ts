import { attestationsRouter } from './attestations/router.ts';
import { auditRouter } from './audit/router.ts';
import { systemRouter } from './system/router.ts';
import { router } from './trpc.ts';
import { webhooksRouter } from './webhooks/router.ts';

/** Every procedure of the service, once: the source of the REST paths, the OpenAPI document and the SDK's types. */
export const appRouter = router({
  attestations: attestationsRouter,
  webhooks: webhooksRouter,
  audit: auditRouter,
  system: systemRouter,
});

export type AppRouter = typeof appRouter;
