-- The attestation a claim derives from (EAS refUID, signed with it): NULL for claims with no origin and for every row
-- made before the field, so adding it rewrites no row. It always names an older row (docs/decisions.md, "Provenance").
ALTER TABLE "attestations" ADD COLUMN "ref_uid" CHAR(66);
