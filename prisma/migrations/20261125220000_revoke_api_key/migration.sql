-- The key that asked for a revocation: its Idempotency-Key is stored and released under that key, and its audit
-- entry names that key's prefix (another key of the same account may revoke what a first key created).
ALTER TABLE "attestations" ADD COLUMN "revoke_api_key_id" UUID;
