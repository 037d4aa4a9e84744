-- The keys that sign W3C Verifiable Credentials (ES256). The newest that is not retired signs; every key not retired
-- is published (/.well-known/jwks.json), so credentials signed before a rotation still verify. The private key is
-- sealed under SERVICE_SECRET: a dump of this table opens nothing.
CREATE TABLE "credential_keys" (
    "kid" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "private_jwk_sealed" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),
    CONSTRAINT "credential_keys_pkey" PRIMARY KEY ("kid")
);

-- A status list is the revoked attestations among 131,072 consecutive ids: this index reads one without the rest.
CREATE INDEX "attestations_revoked_id_idx" ON "attestations" ("id") WHERE "revoked_at" IS NOT NULL;
