import type { ChildProcess } from 'node:child_process';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { loadConfig } from '@attestation-service/server';
import {
  call,
  createTestDatabase,
  fundedKey,
  randomIp,
  startCli,
  TEST_SERVICE_SECRET,
} from '@attestation-service/server/testing';
import { startService, type RunningStack as RunningService } from '../../src/start.ts';

let service: RunningService;
let attester: string;

beforeAll(async () => {
  const chain = inject('chain');
  const key = await fundedKey(chain.rpcUrl);
  attester = privateKeyToAccount(key as `0x${string}`).address;
  const config = loadConfig({
    PORT: '0',
    VERIFY_PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: await createTestDatabase(),
    TRUST_PROXY: 'true',
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: key,
    SERVICE_SECRET: TEST_SERVICE_SECRET,
  });
  service = await startService(config, { parts: { api: true, worker: true, verify: true } });
});
afterAll(() => service?.stop());

async function offchainUid(): Promise<string> {
  const { key } = await service.services.keys.create({ tier: 'pro', account: `serve-${Math.random()}` });
  const res = await call(service.apiUrl, 'POST', '/v1/attestations', {
    key,
    body: { type: 'human', content: `serve ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
  });
  return res.body.uid;
}

const verdictOf = async (url: string) =>
  /data-verdict="([a-z-]+)"/.exec(await (await fetch(url, { headers: { 'x-forwarded-for': randomIp() } })).text())?.[1];

/** Runs the CLI until it prints its ready line (or exits); returns what it printed, the exit code and a stop function. */
function runCli(args: string[], env: Record<string, string | undefined>) {
  let child: ChildProcess | undefined; // known once it has started or ended: stop() is called after that
  const run = startCli(args, { PATH: process.env.PATH, ...env }).then((cli) => {
    child = cli.child;
    return cli;
  });
  return {
    ready: run.then((cli) => cli.stderr()),
    exited: run.then((cli) => cli.ended),
    stop: () => child?.kill('SIGINT'),
  };
}

describe('serve --verify', () => {
  it('serve with every part runs the verification app next to the API, trusting the relayer as attester', async () => {
    expect(service.verifyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await verdictOf(`${service.verifyUrl}/${await offchainUid()}`)).toBe('verified');
  });

  it('serve --verify alone needs only the API, the chain and the attester address: no database, no key', async () => {
    const chain = inject('chain');
    const cli = runCli(['serve', '--verify'], {
      HOST: '127.0.0.1',
      VERIFY_PORT: '0',
      LOG_LEVEL: 'warn',
      API_URL: service.apiUrl,
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      ATTESTER_ADDRESS: attester,
      TRUST_PROXY: 'true',
    });
    const line = await cli.ready;
    const url = /verification app on (http:\/\/\S+);/.exec(line)?.[1];
    expect(url, line).toBeDefined();
    try {
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await verdictOf(`${url}/${await offchainUid()}`)).toBe('verified');
    } finally {
      cli.stop();
    }
    expect(await cli.exited).toBe(0);
  }, 30_000);

  it('serve --verify alone refuses to start without CHAIN_RPC_URL, naming it', async () => {
    const cli = runCli(['serve', '--verify'], { VERIFY_PORT: '0', API_URL: service.apiUrl });
    expect(await cli.exited).toBe(2);
    expect(await cli.ready).toContain('CHAIN_RPC_URL');
  });

  it('serve --verify alone in production refuses to trust the development key, naming ATTESTER_ADDRESS', async () => {
    const chain = inject('chain');
    const cli = runCli(['serve', '--verify'], {
      VERIFY_PORT: '0',
      NODE_ENV: 'production',
      API_URL: service.apiUrl,
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
    });
    expect(await cli.exited).toBe(2);
    expect(await cli.ready).toContain('ATTESTER_ADDRESS is required');
  });

  it('a verifier that trusts another attester calls the same attestation a mismatch', async () => {
    const chain = inject('chain');
    const cli = runCli(['serve', '--verify'], {
      HOST: '127.0.0.1',
      VERIFY_PORT: '0',
      LOG_LEVEL: 'warn',
      API_URL: service.apiUrl,
      CHAIN_RPC_URL: chain.rpcUrl,
      EAS_ADDRESS: chain.eas,
      ATTESTER_ADDRESS: `0x${'12'.repeat(20)}`,
    });
    const url = /verification app on (http:\/\/\S+);/.exec(await cli.ready)?.[1];
    try {
      expect(await verdictOf(`${url}/${await offchainUid()}`)).toBe('mismatch');
    } finally {
      cli.stop();
    }
    await cli.exited;
  }, 30_000);
});
