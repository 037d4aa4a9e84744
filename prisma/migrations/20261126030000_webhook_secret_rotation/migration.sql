-- Secret rotation: the secret a rotation replaced keeps signing beside the new one until previous_secret_expires_at,
-- so receivers switch without a gap; both are null outside a window (stored as the current one is: the service signs).
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret" CHAR(64);
ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secret_expires_at" TIMESTAMPTZ(3);
