// The server's test support as a package entry (@attestation-service/server/testing): for the tests of packages
// built on the server (the launcher's stack tests, the verification app's cross-checks), which may not reach into
// this package's files. Needs the workspace's vitest global setup (test/support/global-setup.ts).
export { call, fundedKey, randomIp, startTestService, type TestService } from './service.ts';
export { createTestDatabase } from './database.ts';
export { CLI, runCli } from './cli.ts';
