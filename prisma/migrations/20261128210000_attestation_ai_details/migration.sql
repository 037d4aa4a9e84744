-- The model behind an AI claim (docs/decisions.md, "The model behind an AI claim"): its identifier, the SHA-256 of the
-- prompt the customer computed, and for an off-chain claim the signed AI-details attestation that names the claim by
-- refUID. NULL for every claim without them and every row made before them, so adding them rewrites no row.
ALTER TABLE "attestations" ADD COLUMN "ai_model" TEXT;
ALTER TABLE "attestations" ADD COLUMN "ai_prompt_hash" CHAR(66);
ALTER TABLE "attestations" ADD COLUMN "ai_offchain" JSONB;
