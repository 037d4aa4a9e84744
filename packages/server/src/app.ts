import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import type { Db } from './db/prisma.ts';
import { pgSql, type Pool } from './db/sql.ts';
import type { Logger } from './log.ts';
import type { Services } from './services.ts';
import { createAttestationService } from './attestations/service.ts';
import { createOffchainSigner } from './attestations/offchain.ts';
import { SCHEMA_UID } from './chain/schema.ts';
import { DEV_EAS_ADDRESS, EAS_VERSION } from './chain/deployments.ts';
import { createKeyService } from './keys/service.ts';
import { createIdempotencyService } from './idempotency/service.ts';
import { createRateLimiter } from './limits/rate-limit.ts';
import type { WindowStore } from './limits/sliding-window.ts';
import { createHealthService, type ReadinessCheck } from './system/health.ts';

/** Builds every service from its parts; nothing here listens, connects or reads the environment. */
export function buildServices(deps: { config: Config; db: Db; pool: Pool; clock: Clock; log: Logger; windows: WindowStore; readiness?: Record<string, ReadinessCheck> }): Services {
  const { config, db, pool, clock, log } = deps;
  const signer = createOffchainSigner({
    privateKey: config.chain.relayerPrivateKey,
    domain: { name: 'EAS Attestation', version: EAS_VERSION, chainId: config.chain.chainId, verifyingContract: config.chain.easAddress ?? DEV_EAS_ADDRESS },
    schemaUid: SCHEMA_UID,
  });
  return {
    config,
    clock,
    log,
    db,
    sql: pgSql(pool),
    rateLimiter: createRateLimiter(deps.windows, clock),
    idempotency: createIdempotencyService(pool, clock),
    keys: createKeyService(db, pool, clock),
    attestations: createAttestationService({ pool, clock, signer, chainId: config.chain.chainId, verifyBaseUrl: config.verifyBaseUrl }),
    health: createHealthService({
      database: async () => {
        await pool.query('SELECT 1');
      },
      ...deps.readiness,
    }),
  };
}
