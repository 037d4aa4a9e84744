import { sealer } from '../system/sealer.ts';
import type { ServiceSecrets } from '../system/service-secret.ts';

/** Seals and opens invitation tokens, so an owner can copy a pending link again (the hash alone could not give it). */
export interface TokenSealer {
  seal(token: string): string;
  /** The token, or undefined when the sealed text was made under neither secret (or was tampered with). */
  unseal(sealed: string): string | undefined;
}

/**
 * `v2.<iv>.<ciphertext>.<tag>` (system/sealer.ts): a dump of the database yields no usable link. v1 was sealed under
 * a secret kept in the database; such a link can no longer be copied (its token still works).
 */
export function tokenSealer(secrets: ServiceSecrets): TokenSealer {
  const sealed = sealer(secrets, 'invitation-token-seal', 'v2');
  return { seal: sealed.seal, unseal: sealed.open };
}
