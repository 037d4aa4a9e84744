-- AlterTable
ALTER TABLE "attestations" ADD COLUMN     "batch_index" INTEGER;

-- CreateIndex
CREATE INDEX "attestations_batch_id_idx" ON "attestations"("batch_id");
