-- AlterTable
ALTER TABLE "attestations" ADD COLUMN     "batch_id" UUID,
ADD COLUMN     "failure_reason" TEXT,
ADD COLUMN     "idempotency_key" VARCHAR(255),
ADD COLUMN     "quota_period" CHAR(7),
ADD COLUMN     "relay_tx_id" BIGINT;

-- CreateTable
CREATE TABLE "relay_transactions" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "nonce" INTEGER,
    "tx_hash" CHAR(66),
    "raw_tx" TEXT,
    "sent_hashes" JSONB NOT NULL DEFAULT '[]',
    "max_fee_per_gas" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "block_number" BIGINT,
    "gas_used" BIGINT,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(3),

    CONSTRAINT "relay_transactions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "relay_transactions_status_idx" ON "relay_transactions"("status");

-- CreateIndex
CREATE INDEX "attestations_status_id_idx" ON "attestations"("status", "id");

-- AddForeignKey
ALTER TABLE "attestations" ADD CONSTRAINT "attestations_relay_tx_id_fkey" FOREIGN KEY ("relay_tx_id") REFERENCES "relay_transactions"("id") ON DELETE SET NULL ON UPDATE CASCADE;
