import type { ServiceSecrets } from '../../system/service-secret.ts';
import { sealer, type Sealer } from '../../system/sealer.ts';

/** Seals credential signing keys at rest under SERVICE_SECRET (its own derived key: no other seal opens them). */
export function credentialKeySealer(secrets: ServiceSecrets): Sealer {
  return sealer(secrets, 'credential-key-seal', 'c1');
}
