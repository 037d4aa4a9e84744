-- Prisma Migrate writes a required scalar list (`events String[]`) as a nullable array column: schema.prisma
-- cannot say NOT NULL for a list, so the column becomes what schema.prisma generates (the service always writes
-- the list, one to three event kinds).
ALTER TABLE "webhook_subscriptions" ALTER COLUMN "events" DROP NOT NULL;

-- One URL at most once per account among live subscriptions (DESIGN.md §7: no fan-out amplification). URLs are
-- stored as `new URL(url).href`. A database that already holds two live subscriptions of one account to the same
-- URL stops here ("could not create unique index ... is duplicated"): delete the extra ones, then migrate again.
CREATE UNIQUE INDEX "webhook_subscriptions_account_id_url_key" ON "webhook_subscriptions"("account_id", "url") WHERE "deleted_at" IS NULL;
