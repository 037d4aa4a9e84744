import { hkdfSync, randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { createPrivateFileOnce, requirePrivate } from './private-file.ts';
import { join } from 'node:path';
import { ConfigError, Secret, type Config } from '../config.ts';

/** Where a development service keeps its secret when SERVICE_SECRET is unset (the embedded default). */
export const SERVICE_SECRET_FILE = 'service-secret';

/** The secret the service derives its keys from, and the one it replaced (still accepted while rotating). */
export interface ServiceSecrets {
  current: Secret;
  previous: Secret | undefined;
}

/** 32 bytes for one purpose (HKDF-SHA256): one secret serves every key, and no key reveals another. */
export function purposeKey(secret: Secret, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret.reveal(), 'attestation-service', purpose, 32));
}

/**
 * SERVICE_SECRET (and SERVICE_SECRET_PREVIOUS); unset, a ConfigError in a real deployment, and in development the
 * secret kept in DATA_DIR (made at the first start). Never in the database: a dump of it must not open what it seals.
 */
export async function loadServiceSecrets(config: Config): Promise<ServiceSecrets> {
  const { current, previous } = config.serviceSecret;
  if (current) return { current, previous };
  if (config.productionBecause)
    throw new ConfigError(
      `SERVICE_SECRET is required when ${config.productionBecause}: set it to 32+ random bytes, ` +
        'e.g. `openssl rand -base64 32` (docs/operations.md, "Service secret")',
    );
  return { current: await dataDirSecret(config.dataDir), previous };
}

/** DATA_DIR/service-secret, made with mode 0600 if missing; one another user can read is refused. */
async function dataDirSecret(dataDir: string): Promise<Secret> {
  const path = join(dataDir, SERVICE_SECRET_FILE);
  await mkdir(dataDir, { recursive: true });
  await createPrivateFileOnce(path, randomBytes(32).toString('base64url'));
  await requirePrivate(path);
  const text = (await readFile(path, 'utf8')).trim();
  if (text.length < 32)
    throw new ConfigError(`${path} holds no secret of 32+ characters: remove it and start again to make one`);
  return new Secret(text);
}
