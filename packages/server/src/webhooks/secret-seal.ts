import type { Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { sealer } from '../system/sealer.ts';
import type { ServiceSecrets } from '../system/service-secret.ts';
import { replaceStoredSecrets, storedSecretsPage } from './secret-store.ts';

// A subscription's signing secret is sealed at rest: a database reader could otherwise sign deliveries a customer
// trusts (docs/decisions.md, "Secrets at rest").

/** Seals and opens the signing secrets of subscriptions; see the functions' own words. */
export interface WebhookSecrets {
  /** `w1.<iv>.<ciphertext>.<tag>` (system/sealer.ts) under SERVICE_SECRET. */
  seal(secret: string): string;
  /** The secret a stored value holds: opened with either service secret, or as-is when stored before sealing. */
  open(stored: string): string | undefined;
  /** The value to store instead, when `stored` is plain or sealed under the previous service secret only. */
  resealed(stored: string): string | undefined;
}

/** A secret as stored before sealing: 32 bytes, hex (`newSecret`). A sealed one has dots and a version. */
const PLAIN = /^[0-9a-f]{64}$/;

export function webhookSecrets(secrets: ServiceSecrets): WebhookSecrets {
  const either = sealer(secrets, 'webhook-secret-seal', 'w1');
  const current = sealer({ current: secrets.current, previous: undefined }, 'webhook-secret-seal', 'w1');
  return {
    seal: either.seal,
    open: (stored) => (PLAIN.test(stored) ? stored : either.open(stored)),
    resealed(stored) {
      if (PLAIN.test(stored)) return either.seal(stored);
      if (current.open(stored) !== undefined) return undefined;
      const secret = either.open(stored);
      return secret === undefined ? undefined : either.seal(secret);
    },
  };
}

const PAGE = 500;

/**
 * The worker's start: seals every secret stored in plain (from before sealing; the migration could not, lacking
 * SERVICE_SECRET) and seals again under the current service secret those only the previous one opens, so that
 * SERVICE_SECRET_PREVIOUS can be dropped after a restart. Deleted subscriptions' secrets too. A row changed
 * meanwhile (a rotation) is left as it was. Returns how many rows it rewrote.
 */
export async function sealStoredSecrets(deps: { db: Db; log: Logger; secrets: WebhookSecrets }): Promise<number> {
  let after: string | undefined;
  let rewritten = 0;
  let unreadable = 0;
  for (;;) {
    const rows = await storedSecretsPage(deps.db, after, PAGE);
    for (const row of rows) {
      const secret = deps.secrets.resealed(row.secret);
      const previous = row.previousSecret === null ? undefined : deps.secrets.resealed(row.previousSecret);
      if (deps.secrets.open(row.secret) === undefined) unreadable++;
      if (secret === undefined && previous === undefined) continue;
      const to = { secret: secret ?? row.secret, previousSecret: previous ?? row.previousSecret };
      if (await replaceStoredSecrets(deps.db, row, to)) rewritten++;
    }
    if (rows.length < PAGE) break;
    after = rows.at(-1)!.id;
  }
  if (rewritten > 0) deps.log.info({ component: 'webhooks', rewritten }, 'webhook secrets sealed');
  // sealed under a secret that is neither SERVICE_SECRET nor SERVICE_SECRET_PREVIOUS: their deliveries fail
  if (unreadable > 0)
    deps.log.warn({ component: 'webhooks', unreadable }, 'webhook secrets sealed under an unknown service secret');
  return rewritten;
}
