import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import type { Db } from './db/prisma.ts';
import { pgSql, type Pool } from './db/sql.ts';
import type { Logger } from './log.ts';
import type { Services } from './services.ts';
import { createAttestationService } from './attestations/service.ts';
import { createOffchainSigner } from './attestations/offchain.ts';
import { SCHEMA_UID } from './chain/schema.ts';
import type { Chain } from './chain/connect.ts';
import type { ChainHealth } from './chain/health.ts';
import { createOnchainSubmitter } from './attestations/onchain.ts';
import { createBatchService } from './attestations/batch.ts';
import { createRevokeService } from './attestations/revocation/service.ts';
import { createKeyService } from './keys/service.ts';
import { createIdempotencyService } from './idempotency/service.ts';
import { createRateLimiter } from './limits/rate-limit.ts';
import type { WindowStore } from './limits/sliding-window.ts';
import { createHealthService, type ReadinessCheck } from './system/health.ts';
import { createWebhookService } from './webhooks/service.ts';
import { systemResolver, type Resolver } from './webhooks/url-guard.ts';

/** Builds every service from its parts; nothing here listens, connects or reads the environment. */
export function buildServices(deps: {
  config: Config;
  db: Db;
  pool: Pool;
  clock: Clock;
  log: Logger;
  windows: WindowStore;
  chain: Chain;
  chainHealth: ChainHealth;
  readiness?: Record<string, ReadinessCheck>;
  /** DNS for webhook URLs (tests inject one). */
  resolve?: Resolver;
}): Services {
  const { config, db, pool, clock, log, chain } = deps;
  const signer = createOffchainSigner({
    privateKey: config.chain.relayerPrivateKey,
    domain: { name: 'EAS Attestation', version: chain.easVersion, chainId: chain.chainId, verifyingContract: chain.eas },
    schemaUid: SCHEMA_UID,
  });
  const webhookPolicy = { allowPrivate: config.webhooks.allowPrivateUrls, resolve: deps.resolve ?? systemResolver };
  const onchain = createOnchainSubmitter({ pool, clock, health: deps.chainHealth, chainId: chain.chainId, schemaUid: SCHEMA_UID, attester: chain.account.address });
  return {
    config,
    clock,
    log,
    db,
    sql: pgSql(pool),
    rateLimiter: createRateLimiter(deps.windows, clock),
    idempotency: createIdempotencyService(pool, clock),
    keys: createKeyService(db, pool, clock),
    attestations: createAttestationService({ pool, clock, signer, chainId: chain.chainId, verifyBaseUrl: config.verifyBaseUrl, onchain, log }),
    revocations: createRevokeService({ pool, onchain }),
    webhooks: createWebhookService({ pool, clock, policy: webhookPolicy }),
    webhookPolicy,
    batches: createBatchService({ pool, clock, signer, onchain, chainId: chain.chainId, verifyBaseUrl: config.verifyBaseUrl }),
    health: createHealthService({
      database: async () => {
        await pool.query('SELECT 1');
      },
      ...deps.readiness,
    }),
  };
}
