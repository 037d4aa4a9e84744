import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { signStandardWebhook } from '@attestation-service/client';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../packages/server/test/support/service.ts';
import { freePort } from '../../packages/server/src/system/ports.ts';
import { makeSigningChain } from '../../packages/server/src/credentials/c2pa/dev-ca.ts';

const run = promisify(execFile);
const DIR = join(import.meta.dirname, '..');
let svc: TestService;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // ANCHOR_INTERVAL=0: no anchoring here, so a fresh off-chain attestation is "not anchored yet" however slow the run
  // a port known up front: credentials and their status lists name PUBLIC_BASE_URL, which label-image.ts fetches
  const port = await freePort();
  const { keyPem, chainPem } = await makeSigningChain({ caName: 'Examples test CA' });
  svc = await startTestService({
    env: {
      C2PA_SIGNING_CERT: chainPem,
      C2PA_SIGNING_KEY: keyPem,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      ANCHOR_INTERVAL: '0',
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    },
  });
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

  it('label-image.ts attests an image, embeds Content Credentials and checks them and its credential', async () => {
    const { stdout } = await run(process.execPath, [join(DIR, 'label-image.ts')], { env, cwd: DIR });
    expect(stdout).toMatch(
      /attested 0x[0-9a-f]{64} \(http:\/\/cv\.iptc\.org\/newscodes\/digitalsourcetype\/trainedAlgorithmicMedia\)/,
    );
    expect(stdout).toMatch(
      /C2PA: \w+; c2pa\.created as http:\/\/cv\.iptc\.org\/newscodes\/digitalsourcetype\/trainedAlgorithmicMedia/,
    );
    expect(stdout).toMatch(/C2PA: names attestation 0x[0-9a-f]{64}/);
    expect(stdout).toMatch(/C2PA: signer .+; (no failures|signingCredential\.untrusted)$/m);
    expect(stdout).toMatch(/VC: issued by did:web:127\.0\.0\.1%3A\d+, ai, revoked: false, verify at /);
  }, 60_000);

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

  it('verify-anchor.ts says "not anchored yet" and exits 0 for an off-chain attestation not anchored yet', async () => {
    const uid = /created (0x[0-9a-f]{64})/.exec(
      (await run(process.execPath, [join(DIR, 'quickstart.ts'), `anchor ${Math.random()}`], { env, cwd: DIR })).stdout,
    )![1]!;
    const chainEnv = { ...env, CHAIN_RPC_URL: svc.chain.rpcUrl };
    const { stdout } = await run(process.execPath, [join(DIR, 'verify-anchor.ts'), uid], { env: chainEnv, cwd: DIR });
    expect(stdout).toBe(`${uid}: not anchored yet; try again in a minute or two\n`);
    const usage = await run(process.execPath, [join(DIR, 'verify-anchor.ts')], { env, cwd: DIR }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(usage).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: CHAIN_RPC_URL=') });
  });

  it('quickstart.ts reports a typed error and exits non-zero with a bad key', async () => {
    const result = await run(process.execPath, [join(DIR, 'quickstart.ts')], {
      env: { ...env, ATTESTATION_API_KEY: 'nope' },
      cwd: DIR,
    }).catch((e: { code: number; stderr: string }) => e);
    expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('401 INVALID_API_KEY') });
  });

  it('webhook-receiver.ts subscribes itself, accepts signed deliveries once, rejects a forged or stale one', async () => {
    const child = spawn(process.execPath, [join(DIR, 'webhook-receiver.ts')], {
      env: { ...env, PORT: '0' },
      cwd: DIR,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    const wake: Array<() => void> = [];
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      for (const w of wake.splice(0)) w();
    });
    const line = async (pattern: RegExp) => {
      for (let i = 0; i < 300; i++) {
        const found = lines.find((l) => pattern.test(l));
        if (found) return found;
        await new Promise<void>((resolve) => {
          wake.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      throw new Error(`no line ${pattern} in ${JSON.stringify(lines)}`);
    };
    try {
      const url = /listening on (\S+)/.exec(await line(/listening on/))![1]!;
      const secret = /secret \(shown once\): ([0-9a-f]{64})/.exec(await line(/subscribed/))![1]!;
      const created = await fetch(`${svc.url}/v1/attestations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ATTESTATION_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'ai',
          content: `hook ${Math.random()}`,
          contentType: 'text/plain',
          mode: 'offchain',
        }),
      }).then((r) => r.json() as Promise<{ uid: string }>);
      const accepted = await line(new RegExp(`accepted attestation.created ${created.uid}`));
      const deliveryId = /delivery ([0-9a-f-]{36})/.exec(accepted)![1]!;
      // the same delivery again (a retry): acknowledged, not handled twice
      const body = JSON.stringify({
        id: 'e',
        type: 'attestation.created',
        createdAt: new Date().toISOString(),
        data: { uid: created.uid },
      });
      const post = (key: string, id = deliveryId, at = Math.floor(Date.now() / 1000)) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'webhook-id': id,
            'webhook-timestamp': String(at),
            'webhook-signature': signStandardWebhook(id, at, body, key),
            'content-type': 'application/json',
          },
          body,
        });
      expect((await post(secret)).status).toBe(200);
      await line(new RegExp(`duplicate ${deliveryId}`));
      const other = '11111111-1111-1111-1111-111111111111';
      expect((await post('f'.repeat(64), other)).status).toBe(400);
      await line(/rejected: no-matching-signature/);
      // a captured delivery sent again ten minutes later: refused, though its signature is genuine
      expect((await post(secret, other, Math.floor(Date.now() / 1000) - 600)).status).toBe(400);
      await line(/rejected: too-old/);
      expect(lines.filter((l) => l.startsWith('accepted'))).toHaveLength(1);
    } finally {
      child.kill();
    }
  }, 60_000);
});

describe('examples/webhook-receiver.ts against a service that refuses local receivers', () => {
  it('explains WEBHOOK_ALLOW_PRIVATE_URLS and exits 1 without a stack trace', async () => {
    const strict = await startTestService({ worker: false });
    try {
      const strictEnv = {
        ...process.env,
        ATTESTATION_API_URL: strict.url,
        ATTESTATION_API_KEY: (await strict.createKey('pro')).key,
        PORT: '0',
      };
      const result = await run(process.execPath, [join(DIR, 'webhook-receiver.ts')], {
        env: strictEnv,
        cwd: DIR,
      }).catch((e: { code: number; stderr: string }) => e);
      expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('WEBHOOK_ALLOW_PRIVATE_URLS=true') });
      expect((result as { stderr: string }).stderr).toContain('public https:// URL');
      expect((result as { stderr: string }).stderr).not.toMatch(/\n\s+at /);
    } finally {
      await strict.stop();
    }
  }, 60_000);
});
