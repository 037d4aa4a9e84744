import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { recoverTypedDataAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFCHAIN_ATTEST_TYPES } from '@attestation-service/protocol';
import { freePort } from '../../src/system/ports.ts';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { runCli, serveChild } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { openTestDb, type Db } from '../support/db.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';
import { call } from '../support/service.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

/** anvil's unlocked account 3: anvil signs for it, standing in for a Web3Signer or Clef that holds its key. */
const SIGNER_ACCOUNT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

let chain: PrivateChain;
let signer: TcpProxy;
let child: ChildProcess;
let db: Db;
let base: string;
let key: string;

beforeAll(async () => {
  chain = await startPrivateChain();
  signer = await startTcpProxy(Number(new URL(chain.rpcUrl).port)); // the signer's own URL, killed at the end
  const databaseUrl = await createTestDatabase();
  // no RELAYER_PRIVATE_KEY anywhere: the service's processes never see the key
  const env = {
    PATH: process.env.PATH,
    DATABASE_URL: databaseUrl,
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_SIGNER_URL: signer.url,
    RELAYER_ADDRESS: SIGNER_ACCOUNT,
    ANCHOR_INTERVAL: '0',
    LOG_LEVEL: 'silent',
  };
  const port = await freePort();
  child = await serveChild(env, port);
  base = `http://127.0.0.1:${port}`;
  key = (JSON.parse((await runCli(env, 'keys', 'create', '--tier', 'pro', '--json')).stdout) as { key: string }).key;
  db = openTestDb(databaseUrl);
}, 60_000);
afterAll(async () => {
  child?.kill('SIGTERM');
  if (child && child.exitCode === null) await new Promise((r) => child.once('exit', r));
  await db?.destroy();
  await signer?.kill();
  await chain?.close();
});

const content = () => ({ type: 'human', content: `signed remotely ${randomUUID()}`, contentType: 'text/plain' });

describe('a remote signer (RELAYER_SIGNER_URL) and no key in the service', () => {
  it('relays a batch: on chain with the signer’s account as attester, each transaction signed there', async () => {
    const batch = { attestations: [content(), content(), content(), content()] };
    const res = await call(base, 'POST', '/v1/attestations/batch', { key, body: batch });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const uids = res.body.attestations.map((a: { uid: string }) => a.uid);
    expect((await chain.attestedBy(SIGNER_ACCOUNT)).sort()).toEqual([...uids].sort());
    const journal = await db.selectFrom('relayTransactions').select(['signer', 'status']).execute();
    expect(journal).toEqual([{ signer: SIGNER_ACCOUNT.toLowerCase(), status: 'mined' }]);
  }, 60_000);

  it('signs off-chain attestations there too (eth_signTypedData_v4): they verify as the signer’s account', async () => {
    const res = await call(base, 'POST', '/v1/attestations', { key, body: { ...content(), mode: 'offchain' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { sig, signer: named } = res.body.offchain;
    expect(named).toBe(SIGNER_ACCOUNT);
    const { r, s, v } = sig.signature as { r: Hex; s: Hex; v: number };
    const recovered = await recoverTypedDataAddress({
      domain: sig.domain,
      types: OFFCHAIN_ATTEST_TYPES,
      primaryType: 'Attest',
      message: { ...sig.message, time: BigInt(sig.message.time), expirationTime: BigInt(sig.message.expirationTime) },
      signature: `${r}${s.slice(2)}${v.toString(16)}` as Hex,
    });
    expect(recovered).toBe(SIGNER_ACCOUNT);
    const verified = await call(base, 'GET', `/v1/attestations/${res.body.uid}`, { key });
    expect(verified.body.attester).toBe(SIGNER_ACCOUNT);
  });

  it('answers an off-chain create with 503 while the signer is unreachable', async () => {
    await signer.kill();
    const res = await call(base, 'POST', '/v1/attestations', { key, body: { ...content(), mode: 'offchain' } });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The signer of off-chain attestations is unavailable; try again shortly',
      details: {},
    });
  }, 60_000);

  it('an on-chain create made while the signer is away goes out, once, when it is back', async () => {
    const idem = randomUUID();
    const body = content();
    const waiting = call(base, 'POST', '/v1/attestations', { key, body, headers: { 'idempotency-key': idem } });
    // the relay job fails to sign and gives its items back to the queue; the job is retried
    await until(async () => {
      const rows = await db
        .selectFrom('relayTransactions')
        .select('id')
        .where('status', '=', 'intent')
        .where('createdAt', '<', new Date(Date.now() - 2_000))
        .execute();
      return rows.length > 0 ? true : undefined;
    });
    signer = await startTcpProxy(Number(new URL(chain.rpcUrl).port), Number(new URL(signer.url).port));
    let res = await waiting;
    if (res.status === 503)
      res = await call(base, 'POST', '/v1/attestations', { key, body, headers: { 'idempotency-key': idem } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await chain.attestedBy(SIGNER_ACCOUNT)).filter((uid) => uid === res.body.uid)).toHaveLength(1);
    expect(await chain.attestedBy(SIGNER_ACCOUNT)).toHaveLength(5);
    const journal = await db.selectFrom('relayTransactions').select(['status', 'error']).orderBy('id').execute();
    expect(journal.map((r) => r.status)).toEqual(['mined', 'failed', 'mined']);
    expect(journal[1]!.error).toBe('abandoned before it was signed');
  }, 120_000);
});
