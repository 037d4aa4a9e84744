-- Webhook signing secrets are sealed at rest (AES-256-GCM under a key derived from SERVICE_SECRET, `w1.…`), longer
-- than the 64 hex characters of a plain one. Sealing needs SERVICE_SECRET, which SQL does not have: the worker seals
-- the plain rows this leaves when it starts, and a delivery signs with a plain one meanwhile.
ALTER TABLE "webhook_subscriptions" ALTER COLUMN "secret" TYPE TEXT;
ALTER TABLE "webhook_subscriptions" ALTER COLUMN "previous_secret" TYPE TEXT;
