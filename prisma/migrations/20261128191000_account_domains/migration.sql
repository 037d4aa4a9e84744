-- Domains an account claims: the service hands out a token, and the domain is verified once its DNS (a TXT record)
-- or its web server (a /.well-known/ file) shows that token. The verification page and the badge name a verified
-- domain as the claimant; an account's name alone is only self-declared.
CREATE TABLE "account_domains" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "domain" VARCHAR(253) NOT NULL,
    "token" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "verified_at" TIMESTAMPTZ(3),
    "verified_by" TEXT,

    CONSTRAINT "account_domains_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "account_domains_account_id_domain_key" ON "account_domains"("account_id", "domain");
ALTER TABLE "account_domains" ADD CONSTRAINT "account_domains_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
