-- An on-chain attestation that puts an off-chain one on chain names it (docs/decisions.md, "Promotion"): NULL for
-- every other row, so adding it rewrites no row. The original's on-chain uid is read through this link, not stored.
ALTER TABLE "attestations" ADD COLUMN "offchain_uid" CHAR(66);

-- One live promotion per original: a failed one (its transaction reverted, its quota given back) frees the original
-- for another try. Also the index that finds an original's promotion.
CREATE UNIQUE INDEX "attestations_offchain_uid_key" ON "attestations"("offchain_uid")
  WHERE (("offchain_uid" IS NOT NULL) AND ("status" <> 'failed'::text));
