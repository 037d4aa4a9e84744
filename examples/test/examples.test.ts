import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../packages/server/test/support/service.ts';

const run = promisify(execFile);
const DIR = join(import.meta.dirname, '..');
let svc: TestService;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  svc = await startTestService();
  env = { ...process.env, ATTESTATION_API_URL: svc.url, ATTESTATION_API_KEY: (await svc.createKey('pro')).key };
});
afterAll(() => svc?.stop());

describe('examples/ against a live server', () => {
  it('quickstart.ts (SDK) creates, reads back and finds an attestation', async () => {
    const content = `example ${Math.random()}`;
    const { stdout } = await run(process.execPath, [join(DIR, 'quickstart.ts'), content], { env, cwd: DIR });
    const uid = /created (0x[0-9a-f]{64})/.exec(stdout)?.[1];
    expect(uid).toBeDefined();
    expect(stdout).toContain(`verify at http://localhost:8081/${uid}`);
    expect(stdout).toMatch(/read back: human, offchain/);
    expect(stdout).toContain(`search found 1 attestation(s) of this content; newest ${uid}`);
  });

  it('curl.sh (REST) does the same', async () => {
    const content = `curl example ${Math.random()}`;
    const { stdout } = await run('bash', [join(DIR, 'curl.sh'), content], { env, cwd: DIR });
    expect(stdout).toMatch(/created 0x[0-9a-f]{64}/);
    expect(stdout).toMatch(/read back: human, offchain, content hash 0x[0-9a-f]{64}/);
    expect(stdout).toContain('search found 1 attestation(s) of this content');
  });

  it('batch.ts makes one batch, its on-chain items in one transaction', async () => {
    const { stdout } = await run(process.execPath, [join(DIR, 'batch.ts'), String(Math.random())], { env, cwd: DIR });
    expect(stdout).toMatch(/batch [0-9a-f-]{36}: 3 attestations, on-chain ones in transaction 0x[0-9a-f]{64}/);
    expect(stdout.match(/ onchain +0x/g)).toHaveLength(2);
    expect(stdout.match(/ offchain +0x/g)).toHaveLength(1);
  }, 60_000);

  it('revoke.ts revokes an attestation through the relayer', async () => {
    const { stdout } = await run(process.execPath, [join(DIR, 'revoke.ts')], { env, cwd: DIR });
    expect(stdout).toMatch(/revoked 0x[0-9a-f]{64} at .+ in transaction 0x[0-9a-f]{64}/);
    expect(stdout).toContain('the record now says revoked: true');
  }, 60_000);

  it('quickstart.ts reports a typed error and exits non-zero with a bad key', async () => {
    const result = await run(process.execPath, [join(DIR, 'quickstart.ts')], { env: { ...env, ATTESTATION_API_KEY: 'nope' }, cwd: DIR }).catch((e: { code: number; stderr: string }) => e);
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('401 INVALID_API_KEY') });
  });
});
