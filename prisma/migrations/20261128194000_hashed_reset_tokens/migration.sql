-- Password reset tokens were stored as better-auth writes them, `reset-password:<token>`: a database reader could
-- open the reset link of any pending reset. They are now stored as `reset-password-sha256:` + the hex SHA-256 of
-- that identifier (the service hashes what a link presents and looks that up). Hashing needs no secret, so the
-- pending ones are converted here, after keeping only each person's newest (a newer reset ends the older ones).
DELETE FROM "verifications" AS v
WHERE v."identifier" LIKE 'reset-password:%'
  AND EXISTS (
    SELECT 1 FROM "verifications" AS n
    WHERE n."identifier" LIKE 'reset-password:%' AND n."value" = v."value"
      AND (n."created_at", n."id") > (v."created_at", v."id")
  );

UPDATE "verifications"
SET "identifier" = 'reset-password-sha256:' || encode(sha256(convert_to("identifier", 'UTF8')), 'hex')
WHERE "identifier" LIKE 'reset-password:%';

-- A passkey added while the account's address was unconfirmed may be someone else's (who signed up with that
-- address first): a password reset, which proves the mailbox, deletes such passkeys. Passkeys of people still
-- unconfirmed are marked here; those of people confirmed since cannot be told apart and stay.
ALTER TABLE "passkeys" ADD COLUMN "registered_unconfirmed" BOOLEAN NOT NULL DEFAULT false;

UPDATE "passkeys" AS p SET "registered_unconfirmed" = true
FROM "users" AS u
WHERE u."id" = p."user_id" AND NOT u."email_verified";
