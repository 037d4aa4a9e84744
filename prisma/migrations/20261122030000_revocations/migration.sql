-- AlterTable
ALTER TABLE "attestations" ADD COLUMN     "revoke_idempotency_key" VARCHAR(255),
ADD COLUMN     "revoke_relay_tx_id" BIGINT,
ADD COLUMN     "revoke_state" TEXT;

-- CreateIndex
CREATE INDEX "attestations_revoke_state_idx" ON "attestations"("revoke_state");

-- AddForeignKey
ALTER TABLE "attestations" ADD CONSTRAINT "attestations_revoke_relay_tx_id_fkey" FOREIGN KEY ("revoke_relay_tx_id") REFERENCES "relay_transactions"("id") ON DELETE SET NULL ON UPDATE CASCADE;
