-- The IPTC digital source type of an attestation, as its term (the URI's last segment). Null for rows stored before
-- the field existed: they read as their type's default (attestations/digital-source-type.ts), so adding the column
-- rewrites no row.
ALTER TABLE "attestations" ADD COLUMN "digital_source_type" TEXT;
