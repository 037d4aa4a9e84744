import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { privateKeyToAccount } from 'viem/accounts';
import { chromium, type Browser } from 'playwright-core';
import {
  call,
  freePort,
  memoryWindowStore,
  randomIp,
  startTestService,
  type TestService,
} from '@attestation-service/server/testing';
import { startVerifyServer, type RunningVerifyServer, type VerifyServerOptions } from '@attestation-service/verify-web';

export { call, randomIp };

/** Screenshots and other artefacts of the browser tests (gitignored). */
export const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));

export interface Stack {
  svc: TestService;
  verify: RunningVerifyServer;
  attester: `0x${string}`;
  stop(): Promise<void>;
}

function startApp(
  svc: TestService,
  attester: `0x${string}`,
  opts: Partial<VerifyServerOptions>,
): Promise<RunningVerifyServer> {
  return startVerifyServer({
    apiUrl: svc.url,
    rpcUrl: svc.chain.rpcUrl,
    chainId: svc.chain.chainId,
    easAddress: svc.chain.eas as `0x${string}`,
    attester,
    port: 0,
    host: '127.0.0.1',
    windows: memoryWindowStore(),
    // tests that are not about limits send their own X-Forwarded-For (see randomIp), as the API's tests do
    trustProxy: true,
    ...opts,
  });
}

/** One more verify app in front of the stack's API, with these options changed (stop it yourself). */
export function startAnotherApp(stack: Stack, opts: Partial<VerifyServerOptions>): Promise<RunningVerifyServer> {
  return startApp(stack.svc, stack.attester, opts);
}

/**
 * The real API (with its relayer) on a fresh database and the run's anvil, and the verify app in front of it on a
 * port the API's VERIFY_BASE_URL names, so records' verifyUrl and the app agree. `env` adds to the API's settings.
 */
export async function startStack(
  opts: Partial<VerifyServerOptions> = {},
  env: Record<string, string> = {},
): Promise<Stack> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const svc = await startTestService({ env: { ...env, VERIFY_BASE_URL: base } });
  const attester = privateKeyToAccount(svc.config.chain.relayerPrivateKey).address;
  try {
    const verify = await startApp(svc, attester, { port, ...opts });
    return { svc, verify, attester, stop: async () => void (await Promise.all([verify.stop(), svc.stop()])) };
  } catch (error) {
    await svc.stop();
    throw error;
  }
}

/** Debian's Chromium, headless, with nothing reaching for the network on its own. */
export async function launchBrowser(): Promise<Browser> {
  await mkdir(OUTPUT_DIR, { recursive: true });
  const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(executablePath))
    throw new Error(
      `no Chromium at ${executablePath}: install Debian's (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Creates an attestation through the API with a fresh key; returns the created body and the key. */
export async function createAttestation(
  svc: TestService,
  body: {
    type: 'human' | 'ai';
    content?: string;
    contentHash?: string;
    contentType?: string;
    mode: 'onchain' | 'offchain';
  },
  key?: string,
) {
  const k = key ?? (await svc.createKey('pro')).key;
  const res = await call(svc.url, 'POST', '/v1/attestations', { key: k, body: { contentType: 'text/plain', ...body } });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { created: res.body as { uid: string; txHash: string | null; verifyUrl: string }, key: k };
}

export async function revoke(svc: TestService, uid: string, key: string): Promise<void> {
  const res = await call(svc.url, 'POST', `/v1/attestations/${uid}/revoke`, { key });
  if (res.status !== 200) throw new Error(`revoke failed: ${res.status} ${JSON.stringify(res.body)}`);
}
