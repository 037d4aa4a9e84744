-- Mail: each member's notification choices, the outbox the worker sends from, and the notices already given (so a
-- threshold or a low balance is mailed once per period, however many transactions cross it).
ALTER TABLE "members" ADD COLUMN "notify_quota" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "members" ADD COLUMN "notify_webhooks" BOOLEAN NOT NULL DEFAULT true;

CREATE TABLE "mail_outbox" (
    "id" UUID NOT NULL,
    "account_id" UUID,
    "kind" TEXT NOT NULL,
    "recipient" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text_body" TEXT NOT NULL,
    "html_body" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "sent_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,

    CONSTRAINT "mail_outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "mail_outbox_account_id_created_at_idx" ON "mail_outbox"("account_id", "created_at");
CREATE INDEX "mail_outbox_recipient_created_at_idx" ON "mail_outbox"("recipient", "created_at");

CREATE TABLE "mail_notices" (
    "scope" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "mail_notices_pkey" PRIMARY KEY ("scope", "kind", "period")
);
