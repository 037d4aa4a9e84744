import { z } from 'zod';

// The dashboard's mail: what its procedures answer and take (the REST API sends no mail of its own).

/** A member's notifications in one account. */
export const preferences = z.strictObject({
  /** The account's on-chain quota reached 80 % or 100 % this month. */
  quota: z.boolean(),
  /** Webhook deliveries went dead (one digest an hour at most). */
  webhooks: z.boolean(),
});

export const mailAvailable = z.object({ mail: z.boolean() });

export const mailStatus = z.object({ mail: z.boolean(), emailVerified: z.boolean() });
