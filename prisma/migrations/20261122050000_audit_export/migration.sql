-- Audit export and chain verification walk one account's entries in chain order (id), in keyset pages.
-- CreateIndex
CREATE INDEX "audit_entries_account_id_id_idx" ON "audit_entries"("account_id", "id");
