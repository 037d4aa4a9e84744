-- Whether someone answerable stands behind an account: the operator opened it (the CLI, or its setup link), or one of
-- its owners confirmed their address. A free account without it gets no on-chain quota, and its unconfirmed members
-- mint no key and send no invitation. Accounts a sign-up opened before this, none of whose owners ever confirmed an
-- address, start without it.
ALTER TABLE "accounts" ADD COLUMN "vouched" BOOLEAN NOT NULL DEFAULT true;

UPDATE "accounts" a SET "vouched" = false
WHERE a."created_by" = 'dashboard' AND NOT EXISTS (
  SELECT 1 FROM "members" m JOIN "users" u ON u."id" = m."user_id"
  WHERE m."account_id" = a."id" AND m."role" = 'owner' AND u."email_verified"
);
