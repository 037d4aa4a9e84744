import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/system/ports.ts';
import { startPrivateChain, until, type PrivateChain } from '../support/anvil.ts';
import { CLI, runCli } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { call, fundedKey } from '../support/service.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.ts';
import { serveRole, stopChild } from './serve.ts';

let chain: PrivateChain;
let collector: OtlpReceiver;
let webhooks: Receiver;
let child: ChildProcess | undefined;
let base: string;
let env: NodeJS.ProcessEnv;
const logLines: string[] = [];

beforeAll(async () => {
  chain = await startPrivateChain();
  collector = await startOtlpReceiver();
  webhooks = await startReceiver(() => ({ status: 200 }));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    ...process.env,
    DATABASE_URL: await createTestDatabase(),
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ANCHOR_INTERVAL: '2s',
    LOG_LEVEL: 'info',
    // the standard variables, as an operator sets them for a collector
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'attestation-service-under-test',
    // the test is the caller whose traceparent the service follows (no TRUST_PROXY: the socket's address)
    OTEL_TRUSTED_PARENTS: '127.0.0.0/8',
  };
  child = await serveRole(
    [],
    { ...env, PORT: String(port), VERIFY_PORT: String(await freePort()) },
    `${base}/healthz`,
    logLines,
  );
}, 120_000);

afterAll(async () => {
  await stopChild(child);
  await webhooks?.close();
  await collector?.close();
  await chain?.close();
});

const attribute = (span: ReceivedSpan, key: string) => span.attributes[key];

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('makes an anchor run a trace of its own', async () => {
    const created = await call(base, 'POST', '/v1/attestations', {
      key: (
        JSON.parse(
          (await promisify(execFile)(process.execPath, [CLI, 'keys', 'create', '--tier', 'free', '--json'], { env }))
            .stdout,
        ) as {
          key: string;
        }
      ).key,
      body: { type: 'human', content: `anchored ${Math.random()}`, contentType: 'text/plain', mode: 'offchain' },
    });
    expect(created.status).toBe(201);
    const run = await until(
      async () => collector.spans.find((s) => s.name === 'anchor run' && Number(attribute(s, 'anchor.leaves')) > 0),
      30_000,
    );
    expect(run.parentSpanId).toBe('');
  }, 60_000);

  it('follows an on-chain create from its request through the queue and its transaction to its webhook', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'keys', 'create', '--tier', 'pro', '--json'], {
      env,
    });
    const { key } = JSON.parse(stdout) as { key: string };
    const subscribed = await call(base, 'POST', '/v1/webhooks', {
      key,
      body: { url: webhooks.url, events: ['attestation.created'] },
    });
    expect(subscribed.status).toBe(201);

    // the caller's own trace (W3C traceparent): the service's spans join it
    const callerTrace = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const created = await call(base, 'POST', '/v1/attestations', {
      key,
      headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
      body: { type: 'ai', content: `traced ${Math.random()}`, contentType: 'text/plain', mode: 'onchain' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const requestId = created.headers.get('x-request-id')!;
    await until(async () => (webhooks.received.length > 0 ? true : undefined), 30_000);

    // the request's span: its route as the metrics label it, never the raw path
    const request = await until(async () => collector.spans.find((s) => s.kind === 2 && s.traceId === callerTrace));
    expect(request.parentSpanId).toBe(callerSpan);
    expect(attribute(request, 'http.route')).toBe('/v1/attestations');
    expect(request.name).toBe('POST /v1/attestations');
    expect(attribute(request, 'http.response.status_code')).toBe(201);
    expect(request.resource['service.name']).toBe('attestation-service-under-test');
    const trace = request.traceId;
    const inTrace = () => collector.spans.filter((s) => s.traceId === trace);

    // in the worker, across the queue: the item's span and the delivery's, children of the request's
    const item = await until(async () => inTrace().find((s) => s.name === 'relay item'));
    expect(item.parentSpanId).toBe(request.spanId);
    expect(attribute(item, 'tx.hash')).toBe(created.body.txHash);
    expect(attribute(item, 'attestation.uid')).toBe(created.body.uid);
    expect(attribute(item, 'tx.block_number')).toBeGreaterThan(0);
    const delivery = await until(async () => inTrace().find((s) => s.name === 'webhook delivery'), 30_000);
    expect(delivery.parentSpanId).toBe(request.spanId);
    expect(attribute(delivery, 'http.response.status_code')).toBe(200);
    // the request's own work: its wait for and share of the group commit that stored its item and asked for the job
    // (the transaction serves every create that arrived with it, so it is none of theirs alone: docs/decisions.md)
    const staged = inTrace().filter(
      (s) => s.name === 'group commit: on-chain stages' && s.parentSpanId === request.spanId,
    );
    expect(staged).toHaveLength(1);
    expect(attribute(staged[0]!, 'db.batch.size')).toBeGreaterThanOrEqual(1);

    // the transaction: a trace of its own, linked to the items it carried
    const transaction = await until(async () =>
      collector.spans.find((s) => s.name === 'relay transaction' && attribute(s, 'tx.hash') === created.body.txHash),
    );
    expect(transaction.traceId).not.toBe(trace);
    expect(transaction.links).toContainEqual({ traceId: trace, spanId: item.spanId });
    expect(attribute(transaction, 'tx.gas_used')).toBeGreaterThan(21_000);

    // the request's log lines carry its trace (the log is buffered: the stop writes out what is left)
    await stopChild(child);
    child = undefined;
    const lines = logLines
      .map((line) => JSON.parse(line) as { requestId?: string; trace_id?: string; span_id?: string; msg: string })
      .filter((line) => line.requestId === requestId);
    expect(lines.map((line) => line.msg)).toContain('request');
    for (const line of lines) expect(line.trace_id, line.msg).toBe(trace);
  }, 90_000);

  it('refuses to start with an exporter it does not have, naming the variable', async () => {
    const refused = await runCli({ ...env, OTEL_TRACES_EXPORTER: 'zipkin', PORT: '0' }, 'serve');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('OTEL_TRACES_EXPORTER=zipkin is not supported');
  });
});
