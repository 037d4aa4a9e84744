-- Key rotation: each relay transaction remembers the relayer address that signed it, so a relayer with another key
-- watches it to its end instead of taking its nonce for its own (lower case; null until signed, and for older rows,
-- whose signer the relayer recovers from the signed bytes).
ALTER TABLE "relay_transactions" ADD COLUMN "signer" CHAR(42);
