import { sealer, type Sealer } from '../system/sealer.ts';
import type { ServiceSecrets } from '../system/service-secret.ts';

/** Seals a queued mail's parts: a reset or invitation link waiting for the SMTP server is a credential at rest. */
export type BodySealer = Sealer;

/** `m1.<iv>.<ciphertext>.<tag>` (system/sealer.ts), opened with either secret. */
export function bodySealer(secrets: ServiceSecrets): BodySealer {
  return sealer(secrets, 'mail-body-seal', 'm1');
}
