-- An anchor's attestations are given their anchor and proof in transactions of a few thousand rows (one transaction
-- for a whole anchor held 100,000 fresh rows locked for seconds, in the way of revocations); the anchor is sent only
-- once every one has it. A crash before that leaves it unassigned: the next anchor run gives its rows back.
ALTER TABLE "anchors" ADD COLUMN "assigned_at" TIMESTAMPTZ(3);
