import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevChain, type DevChain } from '../../src/chain/dev-chain.ts';
import { createTestDatabase } from '../support/database.ts';
import { openTestDb, type Db } from '../support/db.ts';
import { call, fundedKey } from '../support/service.ts';
import { CLI, serveChild } from '../support/cli.ts';
import { freePort } from '../../src/system/ports.ts';
import { waitFor } from '../support/wait.ts';

const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const dir = await mkdtemp(join(tmpdir(), 'crash-'));
let chain: DevChain;
let env: NodeJS.ProcessEnv;
let db: Db;

async function rpc(method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

const until = <T>(read: () => Promise<T | undefined>) => waitFor(read, { timeout: 20_000, interval: 100 });

beforeAll(async () => {
  chain = await startDevChain({ dataDir: dir, deployerKey: ANVIL_KEY });
  const databaseUrl = await createTestDatabase();
  env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
    LOG_LEVEL: 'silent',
  };
  db = openTestDb(databaseUrl);
}, 60_000);
afterAll(async () => {
  await db?.destroy();
  await chain?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('a crash between broadcast and receipt', () => {
  it('is reconciled from the journal at restart: one attestation, and an Idempotency-Key retry returns its uid', async () => {
    const port = await freePort();
    let child = await serveChild(env, port);
    const base = `http://127.0.0.1:${port}`;
    const created = JSON.parse(
      await new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, [CLI, 'keys', 'create', '--tier', 'pro', '--json'], {
          env,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        p.stdout.on('data', (c: Buffer) => (out += c));
        p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`keys create exited ${code}`))));
      }),
    ) as { key: string };
    await rpc('evm_setAutomine', [false]); // transactions now wait in the mempool until we mine
    const idem = randomUUID();
    const body = { type: 'ai', content: `crash ${Math.random()}`, contentType: 'text/plain' };
    const inFlight = call(base, 'POST', '/v1/attestations', {
      key: created.key,
      body,
      headers: { 'idempotency-key': idem },
    }).catch(() => undefined);

    const hash = await until(async () => {
      const [row] = await db.selectFrom('relayTransactions').select('txHash').where('status', '=', 'sent').execute();
      return row?.txHash ?? undefined;
    });
    await until(async () => ((await rpc('eth_getTransactionByHash', [hash])) ? true : undefined)); // broadcast
    child.kill('SIGKILL');
    await inFlight;
    await rpc('evm_mine');
    await rpc('evm_setAutomine', [true]);

    child = await serveChild(env, port);
    try {
      const retry = await call(base, 'POST', '/v1/attestations', {
        key: created.key,
        body,
        headers: { 'idempotency-key': idem },
      });
      expect(retry.status, JSON.stringify(retry.body)).toBe(201);
      expect(retry.body.txHash).toBe(hash);
      const rows = await db.selectFrom('attestations').select(['uid', 'status']).where('txHash', '=', hash).execute();
      expect(rows).toEqual([{ uid: retry.body.uid, status: 'confirmed' }]);
      const journal = await db.selectFrom('relayTransactions').select('status').execute();
      expect(journal.map((r) => r.status)).toEqual(['mined']);
      const receipt = (await rpc('eth_getTransactionReceipt', [hash])) as { logs: unknown[] };
      expect(receipt.logs).toHaveLength(1);
    } finally {
      child.kill('SIGTERM');
    }
  }, 90_000);
});
