-- The dashboard's secret moved out of the database (SERVICE_SECRET, or a file in DATA_DIR): a dump of the database
-- must not hold what opens the sealed invitation links or signs session cookies. Links sealed under the old secret
-- can no longer be copied; their tokens still work. Signed-in members sign in again.
DROP TABLE "service_secrets";
