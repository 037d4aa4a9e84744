/**
 * The SERVICE_SECRET of every test service and CLI child (the service refuses an external database without one):
 * the same everywhere, so a link the CLI sealed is copied from the dashboard of the test's service.
 */
export const TEST_SERVICE_SECRET = 'test-service-secret-not-for-production-use-00';
