-- Plans cannot be multiplied by minting keys: the month's on-chain use is also counted per account, against its
-- plan. Backfilled from the keys' counters, so the current month already binds.
CREATE TABLE "account_monthly_usage" (
    "account_id" UUID NOT NULL,
    "period" CHAR(7) NOT NULL,
    "onchain_used" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "account_monthly_usage_pkey" PRIMARY KEY ("account_id","period")
);

ALTER TABLE "account_monthly_usage" ADD CONSTRAINT "account_monthly_usage_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

INSERT INTO "account_monthly_usage" ("account_id", "period", "onchain_used")
SELECT k."account_id", u."period", sum(u."onchain_used")::int
FROM "monthly_usage" u JOIN "api_keys" k ON k."id" = u."api_key_id"
GROUP BY k."account_id", u."period";

-- Who opened the account: the operator's CLI (and the setup link it prints) or a dashboard sign-up. The CLI acts
-- on a dashboard-opened account only when named by its id. Accounts whose audit log says a sign-up opened them are
-- 'dashboard'; every other existing account is the operator's.
ALTER TABLE "accounts" ADD COLUMN "created_by" TEXT NOT NULL DEFAULT 'cli';

UPDATE "accounts" a SET "created_by" = 'dashboard'
WHERE EXISTS (SELECT 1 FROM "audit_entries" l
              WHERE l."account_id" = a."id" AND l."action" = 'account.created' AND l."details"->>'via' = 'signup');

-- Names are unique as NFKC + lower case (`ACME` and `acme` are one account). Existing lookalikes keep their names;
-- every one but the oldest gets a key suffixed with its id, so it stays reachable by id and no new account can
-- take the name.
ALTER TABLE "accounts" ADD COLUMN "name_key" TEXT;

UPDATE "accounts" SET "name_key" = lower(normalize("name", NFKC));

UPDATE "accounts" a SET "name_key" = a."name_key" || '#' || a."id"
FROM (SELECT "id", row_number() OVER (PARTITION BY "name_key" ORDER BY "created_at", "id") AS n FROM "accounts") d
WHERE d."id" = a."id" AND d.n > 1;

ALTER TABLE "accounts" ALTER COLUMN "name_key" SET NOT NULL;

CREATE UNIQUE INDEX "accounts_name_key_key" ON "accounts"("name_key");
