import type { AttestationService } from './attestations/service.ts';
import type { BatchService } from './attestations/batch.ts';
import type { RevokeService } from './attestations/revocation/service.ts';
import type { Config } from './config.ts';
import type { Db } from './db/prisma.ts';
import type { Sql } from './db/sql.ts';
import type { IdempotencyService } from './idempotency/service.ts';
import type { RateLimiter } from './limits/rate-limit.ts';
import type { Clock } from './clock.ts';
import type { KeyService } from './keys/service.ts';
import type { Logger } from './log.ts';
import type { HealthService } from './system/health.ts';
import type { WebhookService } from './webhooks/service.ts';
import type { UrlPolicy } from './webhooks/url-guard.ts';

/** What procedures reach through their context; built once by the composition root. */
export interface Services {
  config: Config;
  clock: Clock;
  log: Logger;
  db: Db;
  /** The pg pool's query runner, for the hot paths. */
  sql: Sql;
  rateLimiter: RateLimiter;
  idempotency: IdempotencyService;
  keys: KeyService;
  attestations: AttestationService;
  batches: BatchService;
  revocations: RevokeService;
  webhooks: WebhookService;
  /** How webhook receiver URLs are vetted (the worker's deliveries use the same). */
  webhookPolicy: UrlPolicy;
  health: HealthService;
}
