import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestService, type TestService } from '../../packages/server/test/support/service.ts';

const run = promisify(execFile);
const DIR = join(import.meta.dirname, '..');
let svc: TestService;

beforeAll(async () => {
  // anchoring every second, so a new off-chain attestation is anchored within the test
  svc = await startTestService({ env: { ANCHOR_INTERVAL: '1s' } });
});
afterAll(() => svc?.stop());

/** The record once the worker anchored it (the API's own answer, polled). */
async function anchorOf(
  uid: string,
): Promise<{ root: string; txHash: string; blockNumber: number; timestamp: string }> {
  for (let i = 0; i < 300; i++) {
    const { body } = await call(svc.url, 'GET', `/v1/attestations/${uid}`);
    if (body?.anchor) return body.anchor;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`attestation ${uid} was not anchored within 30 s`);
}

describe('examples/verify-anchor.ts against a service that anchors', () => {
  it('says when an anchored off-chain attestation existed, by the chain, and exits 0', async () => {
    const { key } = await svc.createKey('free');
    const created = await call(svc.url, 'POST', '/v1/attestations', {
      key,
      body: {
        type: 'human',
        content: `anchored example ${Math.random()}`,
        contentType: 'text/plain',
        mode: 'offchain',
      },
    });
    expect(created.status).toBe(201);
    const uid = created.body.uid as string;
    const anchor = await anchorOf(uid);
    const env = {
      ...process.env,
      ATTESTATION_API_URL: svc.url,
      CHAIN_RPC_URL: svc.chain.rpcUrl,
      EAS_ADDRESS: svc.chain.eas,
    };
    const { stdout } = await run(process.execPath, [join(DIR, 'verify-anchor.ts'), uid], { env, cwd: DIR });
    expect(stdout).toBe(
      `${uid} existed by ${new Date(anchor.timestamp).toISOString()}\n` +
        `  root ${anchor.root}, timestamped in transaction ${anchor.txHash} (block ${anchor.blockNumber})\n`,
    );
    // without EAS_ADDRESS on a chain with no default: it says what to set, and gives no verdict
    const { EAS_ADDRESS: _, ...noEas } = env;
    const refused = await run(process.execPath, [join(DIR, 'verify-anchor.ts'), uid], { env: noEas, cwd: DIR }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('set EAS_ADDRESS') });
  }, 60_000);
});
