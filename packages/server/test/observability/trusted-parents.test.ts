import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.ts';
import { tracer } from '../../src/tracing/tracing.ts';
import { parentTrustFrom } from '../../src/tracing/trusted-parents.ts';
import { call, startTestService, type TestService } from '../support/service.ts';
import { waitFor } from '../support/wait.ts';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.ts';

const TRACING_ENV = {
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '50',
  // the service's own sampler exports nothing: only a followed caller's sampled flag could
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: '0',
  OTEL_TRUSTED_PARENTS: '203.0.113.0/24, 2001:db8:7::/48',
};

let collector: OtlpReceiver;
let svc: TestService;
const lines: Array<{ requestId?: string; trace_id?: string; msg: string }> = [];

beforeAll(async () => {
  collector = await startOtlpReceiver();
  // the service in this process starts tracing as `serve` does: from the OTEL_* variables of its environment
  Object.assign(process.env, { ...TRACING_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const log = createLogger('info', sink, () => tracer().logIds() ?? {});
  svc = await startTestService({ worker: false, log });
});

afterAll(async () => {
  await svc?.stop();
  for (const name of Object.keys(TRACING_ENV)) delete process.env[name];
  await collector?.close();
});

const traceparentOf = () => {
  const trace = randomBytes(16).toString('hex');
  const span = randomBytes(8).toString('hex');
  return { trace, span, header: `00-${trace}-${span}-01` };
};

/** A read with a sampled traceparent from `address`; the trace id its request log line carries. */
async function tracedRead(address: string, traceparent: string): Promise<string | undefined> {
  const res = await call(svc.url, 'GET', `/v1/attestations?hash=0x${'ab'.repeat(32)}`, {
    headers: { 'x-forwarded-for': address, traceparent },
  });
  expect(res.status).toBe(200);
  const requestId = res.headers.get('x-request-id');
  await expect.poll(() => lines.some((l) => l.requestId === requestId && l.msg === 'request')).toBe(true);
  return lines.find((l) => l.requestId === requestId && l.msg === 'request')?.trace_id;
}

/**
 * Waits until the exporter has passed every span ended so far: a trusted read after them is exported (the batch
 * exports spans in the order they ended), so a span before it that was to be exported would be there by then.
 */
async function exportedUpToNow(): Promise<void> {
  const marker = traceparentOf();
  expect(await tracedRead('203.0.113.41', marker.header)).toBe(marker.trace);
  await waitFor(() => collector.spans.some((s) => s.traceId === marker.trace), { what: 'the marker span exported' });
}

describe('an inbound traceparent at a sampling ratio of 0', () => {
  it("from an untrusted caller: nothing is exported, and the service's span has a trace id of its own", async () => {
    const caller = traceparentOf();
    const traceId = await tracedRead('198.51.100.9', caller.header);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe(caller.trace);
    await exportedUpToNow();
    expect(collector.spans.filter((s) => s.traceId === caller.trace || s.traceId === traceId)).toEqual([]);
  });

  it('from a trusted caller (a listed range, IPv4 or IPv6): the span joins its trace and is exported', async () => {
    for (const address of ['203.0.113.40', '2001:db8:7:1::5']) {
      const caller = traceparentOf();
      expect(await tracedRead(address, caller.header)).toBe(caller.trace);
      const served = () => collector.spans.find((s) => s.traceId === caller.trace && s.kind === 2);
      await expect.poll(served).toBeDefined();
      expect(served()!.parentSpanId).toBe(caller.span);
    }
  });
});

describe('OTEL_TRUSTED_PARENTS', () => {
  it('trusts nobody by default, everybody with all, and a list by address (IPv4-mapped as IPv4)', () => {
    expect(parentTrustFrom({})('127.0.0.1')).toBe(false);
    expect(parentTrustFrom({ OTEL_TRUSTED_PARENTS: 'none' })('10.0.0.1')).toBe(false);
    expect(parentTrustFrom({ OTEL_TRUSTED_PARENTS: 'all' })('198.51.100.1')).toBe(true);
    const listed = parentTrustFrom({ OTEL_TRUSTED_PARENTS: '10.0.0.0/8,192.0.2.7,fd00::/8' });
    expect(['10.1.2.3', '::ffff:10.1.2.3', '192.0.2.7', 'fd12::1'].map(listed)).toEqual([true, true, true, true]);
    expect(['11.0.0.1', '192.0.2.8', 'fe80::1', undefined, 'unknown'].map(listed)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('refuses an entry that is no address or range, naming the variable', () => {
    expect(() => parentTrustFrom({ OTEL_TRUSTED_PARENTS: '10.0.0.0/8,intranet' })).toThrow(
      /OTEL_TRUSTED_PARENTS=intranet/,
    );
  });
});
