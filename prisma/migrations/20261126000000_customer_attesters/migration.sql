-- Customer attesters: an account proves control of an address by signing a challenge, then signs its own
-- attestations (EAS delegated requests, or off-chain packages) while the relayer pays the gas.
CREATE TABLE "attester_challenges" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "address" CHAR(42) NOT NULL,
    "message" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "attester_challenges_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "attester_challenges_expires_at_idx" ON "attester_challenges"("expires_at");
ALTER TABLE "attester_challenges" ADD CONSTRAINT "attester_challenges_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- One live registration per address across all accounts; a removed one is kept (removed_at) for the record.
CREATE TABLE "attesters" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "address" CHAR(42) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "removed_at" TIMESTAMPTZ(3),

    CONSTRAINT "attesters_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "attesters_account_id_idx" ON "attesters"("account_id");
CREATE UNIQUE INDEX "attesters_address_key" ON "attesters"("address") WHERE removed_at IS NULL;
ALTER TABLE "attesters" ADD CONSTRAINT "attesters_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A delegated on-chain attestation carries its attester's signature, deadline and EAS nonce to the relayer.
ALTER TABLE "attestations" ADD COLUMN "delegation" JSONB;
ALTER TABLE "attestations" ADD COLUMN "delegation_nonce" DECIMAL(78,0);
CREATE UNIQUE INDEX "attestations_delegation_nonce_key" ON "attestations"("chain_id", "attester", "delegation_nonce") WHERE delegation_nonce IS NOT NULL AND status <> 'failed';
CREATE INDEX "attestations_delegated_pending_idx" ON "attestations"("id") WHERE delegation IS NOT NULL AND status = 'pending';
