-- The dashboard's attestations page and revocations (issue 14).

-- The member who asked for a revocation from the dashboard: the relayer's audit entry names them once it is mined.
ALTER TABLE "attestations" ADD COLUMN "revoke_actor" JSONB;

-- Pages filtered by type and/or mode, newest first: one short walk per (type, mode) pair, whatever the mix.
CREATE INDEX "attestations_account_id_type_mode_id_idx" ON "attestations"("account_id", "type", "mode", "id" DESC);
-- The revoked ones alone (usually few, so a walk of all an account's attestations would mostly skip).
CREATE INDEX "attestations_revoked_account_id_type_mode_id_idx" ON "attestations"("account_id", "type", "mode", "id" DESC) WHERE revoked_at IS NOT NULL;
