-- People who joined before mail existed used an invitation link bound to their address: that link confirmed it, as
-- signing up with one does now. Without this they would get no notification until they confirm again.
UPDATE "users" u SET "email_verified" = true
WHERE NOT u."email_verified" AND EXISTS (
  SELECT 1 FROM "invitations" i
  WHERE i."accepted_by" = u."id" AND i."email" IS NOT NULL AND lower(i."email") = lower(u."email")
);
