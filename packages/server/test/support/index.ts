// The server's test support as a package entry (@attestation-service/server/testing): for the tests of packages
// built on the server (the launcher's stack tests, the verification app's cross-checks), which may not reach into
// this package's files. Needs the workspace's vitest global setup (test/support/global-setup.ts).
export { call, fundedKey, randomIp, startTestService, type TestService } from './service.ts';
export { createTestDatabase } from './database.ts';
export { pgSql, type Sql } from './sql.ts';
export { insertAccount, insertMember, testDb, type Db } from './db.ts';
export { TEST_SERVICE_SECRET } from './secret.ts';
export { CLI, runCli, startCli, type CliRun } from './cli.ts';
export { freePort } from '../../src/system/ports.ts';
export { memoryWindowStore } from '../../src/limits/sliding-window.ts';
// the service's off-chain signer (verify-web's verdict tests derive records from it; the schemas and their data are
// @attestation-service/protocol's)
export { createOffchainSigner } from '../../src/attestations/offchain.ts';
// a real SMTP server with an inbox (MailDev), for the dashboard's mail flows in a browser
export { linkIn, startInbox, type Inbox } from '../mail/inbox.ts';
// a DNS server answering TXT questions from a table, for domain proofs through a real resolver
export { startTxtServer } from '../domains/dns-server.ts';
