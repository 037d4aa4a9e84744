import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openChain } from '../../src/chain/connect.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { freePort } from '../../src/system/ports.ts';
import { startPrivateChain, type PrivateChain } from '../support/anvil.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';
import { fundedKey } from '../support/service.ts';

const ANVIL_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ANVIL_KEY_5 = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
const ANVIL_ACCOUNT_3 = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
/** A chain id no development tool starts with (and eas-contracts has no deployment for). */
const REAL_CHAIN_ID = 990_001;

let real: PrivateChain;
let dev: PrivateChain;

beforeAll(async () => {
  [real, dev] = await Promise.all([startPrivateChain(), startPrivateChain()]);
  await real.rpc('anvil_setChainId', [REAL_CHAIN_ID]);
}, 60_000);
afterAll(async () => {
  await real?.close();
  await dev?.close();
});

const log = createLogger('silent');
const envOf = (chain: PrivateChain, env: Record<string, string> = {}) => ({
  CHAIN_RPC_URL: chain.rpcUrl,
  EAS_ADDRESS: chain.eas,
  SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
  ...env,
});
/** Opens the chain as a service would; the error it refuses with, or undefined when it opened. */
async function opening(env: Record<string, string>): Promise<Error | undefined> {
  try {
    const chain = await openChain(loadConfig(env), log);
    await chain.stop();
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

describe('a well-known development key on a chain that is not a development chain', () => {
  it('without RELAYER_PRIVATE_KEY, refuses to start, saying what to set', async () => {
    const error = await opening(envOf(real));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch(`chain ${REAL_CHAIN_ID} is not a development chain and no relayer key is set`);
    expect(error!.message).toMatch(/set RELAYER_PRIVATE_KEY to a key of your own, or RELAYER_SIGNER_URL/);
  });

  it("refuses anvil's account 0 and the other published accounts as RELAYER_PRIVATE_KEY", async () => {
    for (const [key, index] of [
      [ANVIL_KEY_0, 0],
      [ANVIL_KEY_5, 5],
    ] as const) {
      const error = await opening(envOf(real, { RELAYER_PRIVATE_KEY: key }));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error!.message).toMatch(`RELAYER_PRIVATE_KEY is anvil's development account ${index}, whose private key`);
    }
  });

  it('refuses a remote signer that signs for a published development account', async () => {
    const error = await opening(envOf(real, { RELAYER_SIGNER_URL: real.rpcUrl, RELAYER_ADDRESS: ANVIL_ACCOUNT_3 }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch("RELAYER_ADDRESS is anvil's development account 3");
  });

  it('starts with a key of its own', async () => {
    expect(await opening(envOf(real, { RELAYER_PRIVATE_KEY: await fundedKey(real.rpcUrl) }))).toBeUndefined();
  });

  it('the CLI prints the refusal on one line and exits non-zero', async () => {
    const env = {
      PATH: process.env.PATH,
      DATABASE_URL: await createTestDatabase(),
      SERVICE_SECRET: TEST_SERVICE_SECRET,
      ...envOf(real),
    };
    const out = await runCli(
      { ...env, PORT: String(await freePort()), VERIFY_PORT: String(await freePort()) },
      'serve',
    );
    expect(out.code).not.toBe(0);
    expect(out.stderr).toMatch(/no relayer key is set .*set RELAYER_PRIVATE_KEY/);
    expect(out.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  }, 60_000);
});

describe('a development chain (chain id 31337)', () => {
  it("still relays with anvil's account 0 when no key is set", async () => {
    expect(await opening(envOf(dev))).toBeUndefined();
    expect(await opening(envOf(dev, { RELAYER_PRIVATE_KEY: ANVIL_KEY_5 }))).toBeUndefined();
  });
});

describe('CHAIN_RPC_URL with several endpoints', () => {
  it('refuses an endpoint on another chain than the first, naming both', async () => {
    const key = await fundedKey(dev.rpcUrl);
    const error = await opening(
      envOf(dev, { CHAIN_RPC_URL: `${dev.rpcUrl},${real.rpcUrl}`, RELAYER_PRIVATE_KEY: key }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    const port = new URL(real.rpcUrl).port;
    expect(error!.message).toMatch(
      `CHAIN_RPC_URL endpoint 2 (127.0.0.1:${port}) is on chain ${REAL_CHAIN_ID}, but endpoint 1 (127.0.0.1:${new URL(dev.rpcUrl).port}) is on chain 31337`,
    );
  });

  it('refuses an endpoint whose chain is not CHAIN_ID', async () => {
    const error = await opening(envOf(dev, { CHAIN_ID: String(REAL_CHAIN_ID) }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch(`is on chain 31337, but CHAIN_ID is ${REAL_CHAIN_ID}`);
  });

  it('refuses a list where no endpoint answers', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const error = await opening(envOf(dev, { CHAIN_RPC_URL: closed }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toBe(
      `CHAIN_RPC_URL: cannot reach ${new URL(closed).host}: nothing accepts connections there; check CHAIN_RPC_URL`,
    );
  });

  it('starts when one endpoint does not answer yet (it is used once it answers the same chain id)', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const chain = await openChain(loadConfig(envOf(dev, { CHAIN_RPC_URL: `${closed},${dev.rpcUrl}` })), log);
    try {
      expect(chain.endpoints().map((e) => e.state)).toEqual(['unchecked', 'ok']);
      expect(await chain.publicClient.getChainId()).toBe(31_337);
    } finally {
      await chain.stop();
    }
  });
});
