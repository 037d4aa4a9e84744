import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { purposeKey, type ServiceSecrets } from '../system/service-secret.ts';

/** Seals a queued mail's parts: a reset or invitation link waiting for the SMTP server is a credential at rest. */
export interface BodySealer {
  seal(text: string): string;
  /** The text, or undefined when it was sealed under neither secret (or tampered with). */
  open(sealed: string): string | undefined;
}

const VERSION = 'm1';
const PURPOSE = 'mail-body-seal';

/** AES-256-GCM under a key derived from SERVICE_SECRET (`m1.<iv>.<ciphertext>.<tag>`), opened with either secret. */
export function bodySealer(secrets: ServiceSecrets): BodySealer {
  const key = purposeKey(secrets.current, PURPOSE);
  const keys = secrets.previous ? [key, purposeKey(secrets.previous, PURPOSE)] : [key];
  return {
    seal(text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return [VERSION, ...[iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url'))].join('.');
    },
    open(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || !body || !tag) return undefined;
      for (const k of keys) {
        try {
          const decipher = createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
          decipher.setAuthTag(Buffer.from(tag, 'base64url'));
          return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
        } catch {
          // the other secret, if any
        }
      }
      return undefined;
    },
  };
}
