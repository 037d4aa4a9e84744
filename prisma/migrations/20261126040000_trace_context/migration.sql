-- Tracing (docs/operations.md, "Tracing"): the W3C traceparent of the work that made a row, so that the worker's
-- spans for it (its relay, its webhook delivery) join the request's trace. Taken from the transaction's
-- app.traceparent setting, which the service sets only with tracing on: no insert names the column, and without
-- tracing it stays NULL. Adding a nullable column with a non-volatile default rewrites no row.
ALTER TABLE "attestations"
  ADD COLUMN "traceparent" TEXT DEFAULT NULLIF(current_setting('app.traceparent', true), '');
ALTER TABLE "webhook_deliveries"
  ADD COLUMN "traceparent" TEXT DEFAULT NULLIF(current_setting('app.traceparent', true), '');
