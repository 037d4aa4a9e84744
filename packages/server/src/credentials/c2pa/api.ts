import { ConfigError, type Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Mount } from '../../http/server.ts';
import type { Logger } from '../../log.ts';
import { loadSigningIdentity } from './identity.ts';
import { contentCredentialsMount, type ContentCredentialsMountDeps } from './mount.ts';
import { createContentCredentialsService } from './service.ts';
import { startSigningPool, type SigningPool } from './signing-pool.ts';

/**
 * Content Credentials on the API: the signing identity (C2PA_SIGNING_CERT, else in development the chain in DATA_DIR)
 * and its signing threads. A real deployment without a certificate serves everything else and answers this route 503
 * naming what to set (an operator who offers no Content Credentials needs no certificate); a certificate that is set
 * but wrong stops the boot.
 */
export async function startContentCredentials(
  deps: { config: Config; db: Db; log: Logger; easContract: string } & Omit<
    ContentCredentialsMountDeps,
    'contentCredentials'
  >,
): Promise<{ mount: Mount; stop: () => Promise<void> }> {
  const { config, log, keys, rateLimiter, audit } = deps;
  let signing: { pool: SigningPool } | { off: string };
  try {
    const identity = await loadSigningIdentity(config);
    signing = { pool: startSigningPool(identity, config.c2pa.concurrency) };
    if (identity.development) log.info('Content Credentials sign with the development CA in DATA_DIR (untrusted)');
  } catch (error) {
    if (!(error instanceof ConfigError) || config.c2pa.certificateChain !== undefined) throw error;
    signing = { off: error.message };
    log.warn({ reason: error.message }, 'Content Credentials are off');
  }
  const contentCredentials = createContentCredentialsService({
    db: deps.db,
    verifyBaseUrl: config.verifyBaseUrl,
    easContract: deps.easContract,
    maxBytes: config.c2pa.maxBytes,
    signing,
  });
  return {
    mount: contentCredentialsMount({ keys, rateLimiter, audit, contentCredentials }),
    stop: async () => {
      if ('pool' in signing) await signing.pool.close();
    },
  };
}
