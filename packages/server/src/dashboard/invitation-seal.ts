import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Seals and opens invitation tokens, so an owner can copy a pending link again (the hash alone could not give it). */
export interface TokenSealer {
  seal(token: string): string;
  /** The token, or undefined when the sealed text was not made with this secret (or was tampered with). */
  unseal(sealed: string): string | undefined;
}

const VERSION = 'v1';

/**
 * AES-256-GCM under a key derived (HKDF-SHA256) from the dashboard's secret: a database dump alone does not yield
 * usable links, and the sealed form is `v1.<iv>.<ciphertext>.<tag>` in base64url.
 */
export function tokenSealer(secret: string): TokenSealer {
  const key = Buffer.from(hkdfSync('sha256', secret, 'attestation-service', 'invitation-token-seal', 32));
  return {
    seal(token) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    unseal(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || !body || !tag) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
