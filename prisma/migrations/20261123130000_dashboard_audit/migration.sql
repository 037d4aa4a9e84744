-- The dashboard's audit log page (issue 14): an account's entries newest first, filtered by action or actor, in
-- pages that stay a short index walk however rare the value among a million entries.
CREATE INDEX "audit_entries_account_id_action_at_idx" ON "audit_entries"("account_id", "action", "at");
CREATE INDEX "audit_entries_account_id_actor_key_prefix_at_idx" ON "audit_entries"("account_id", "actor_key_prefix", "at");
-- Entries a dashboard member made (details.actor): few beside the keys', so a member's are found among them.
CREATE INDEX "audit_entries_member_account_id_at_idx" ON "audit_entries"("account_id", "at") WHERE details ? 'actor'::text;
