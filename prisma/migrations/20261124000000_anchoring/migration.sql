-- Anchoring off-chain attestations (DESIGN.md §9, issue 16): every ANCHOR_INTERVAL the worker puts the uids of the
-- off-chain attestations made since the last anchor into a Merkle tree and timestamps its root with EAS.timestamp.

-- CreateTable
CREATE TABLE "anchors" (
    "id" BIGSERIAL NOT NULL,
    "root" CHAR(66) NOT NULL,
    "leaf_count" INTEGER NOT NULL,
    "relay_tx_id" BIGINT,
    "tx_hash" CHAR(66),
    "block_number" BIGINT,
    "timestamp" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "anchors_pkey" PRIMARY KEY ("id")
);

-- One root, one anchor: a second tree of the same uids could only be a second anchor of them.
CREATE UNIQUE INDEX "anchors_root_key" ON "anchors"("root");
-- The anchors still waiting for their transaction: the relayer looks for them every round.
CREATE INDEX "anchors_unmined_idx" ON "anchors"("id") WHERE (tx_hash IS NULL);

-- AlterTable: an attestation is in one anchor at most (one column, set once, in the transaction that makes the anchor)
ALTER TABLE "attestations" ADD COLUMN "anchor_id" BIGINT,
ADD COLUMN "anchor_proof" BYTEA;

-- The off-chain attestations no anchor holds yet: what the next anchor takes, whatever the table's size.
CREATE INDEX "attestations_unanchored_idx" ON "attestations"("id") WHERE ((mode = 'offchain'::text) AND (anchor_id IS NULL));
-- An anchor's attestations (its webhook events and audit entries, by account).
CREATE INDEX "attestations_anchor_id_idx" ON "attestations"("anchor_id") WHERE (anchor_id IS NOT NULL);

-- AddForeignKey
ALTER TABLE "anchors" ADD CONSTRAINT "anchors_relay_tx_id_fkey" FOREIGN KEY ("relay_tx_id") REFERENCES "relay_transactions"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "attestations" ADD CONSTRAINT "attestations_anchor_id_fkey" FOREIGN KEY ("anchor_id") REFERENCES "anchors"("id") ON DELETE SET NULL ON UPDATE CASCADE;
