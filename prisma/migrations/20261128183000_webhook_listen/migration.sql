-- A subscription made by `attestation-service webhooks listen` (a developer's receiver on this machine) holds a
-- lease: the CLI renews it while it runs, and the worker's sweep deletes the subscription once it lapses, so a killed
-- CLI leaves nothing behind. NULL for every ordinary subscription; the worker lets only these reach loopback.
ALTER TABLE "webhook_subscriptions" ADD COLUMN "listen_expires_at" TIMESTAMPTZ(3);

-- The sweep's lookup of lapsed leases reads only live listen subscriptions.
CREATE INDEX "webhook_subscriptions_listen_expires_at_idx" ON "webhook_subscriptions"("listen_expires_at") WHERE ((listen_expires_at IS NOT NULL) AND (deleted_at IS NULL));
