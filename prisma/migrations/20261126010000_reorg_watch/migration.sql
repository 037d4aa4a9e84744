-- Reorgs: a mined relay transaction keeps its block's hash, so the relayer can tell when that block leaves the
-- chain and send the transaction's items again; an attestation re-sent that way remembers the uid it had.
ALTER TABLE "relay_transactions" ADD COLUMN "block_hash" CHAR(66),
ADD COLUMN "reorged_at" TIMESTAMPTZ(3);
CREATE INDEX "relay_transactions_block_number_idx" ON "relay_transactions"("block_number");
ALTER TABLE "attestations" ADD COLUMN "previous_uid" TEXT;
