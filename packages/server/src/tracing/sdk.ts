import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ConfigError } from '../config.ts';
import { describeError } from '../errors.ts';
import {
  installTracer,
  TRACEPARENT,
  type ActiveSpan,
  type SpanAttributes,
  type SpanOptions,
  type Tracer,
} from './tracing.ts';
import { parentTrustFrom } from './trusted-parents.ts';

const KINDS = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

function parse(traceparent: string | null | undefined): SpanContext | undefined {
  if (!traceparent || !TRACEPARENT.test(traceparent)) return undefined;
  const [, traceId, spanId, flags] = traceparent.split('-') as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) & TraceFlags.SAMPLED, isRemote: true };
}

function format(span: SpanContext): string | undefined {
  if (!trace.isSpanContextValid(span)) return undefined;
  return `00-${span.traceId}-${span.spanId}-0${span.traceFlags & TraceFlags.SAMPLED}`;
}

const attributes = (given: SpanAttributes | undefined): Attributes =>
  Object.fromEntries(Object.entries(given ?? {}).filter(([, value]) => value !== undefined)) as Attributes;

function handle(span: Span): ActiveSpan {
  return {
    set: (given) => void span.setAttributes(attributes(given)),
    // the error's type and code only: a message may carry SQL or values (docs/operations.md, "Logs")
    fail(error) {
      const { type, code } = describeError(error);
      span.setAttributes(attributes({ 'error.type': code ?? type }));
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    },
    traceparent: () => format(span.spanContext()),
  };
}

/** The exporter the OTEL_* variables name: OTLP over HTTP, protobuf (the default) or JSON, or the console. */
async function exporterFor(kind: 'otlp' | 'console', env: NodeJS.ProcessEnv): Promise<SpanExporter> {
  if (kind === 'console') return new ConsoleSpanExporter();
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  if (protocol === 'http/json')
    return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  if (protocol === 'http/protobuf')
    return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  throw new ConfigError(
    `invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: set it to http/protobuf or http/json`,
  );
}

/** OTEL_TRACES_SAMPLER and its OTEL_TRACES_SAMPLER_ARG (a ratio), as the specification names them. */
function samplerFrom(env: NodeJS.ProcessEnv): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  if (name.endsWith('traceidratio') && !(ratio >= 0 && ratio <= 1))
    throw new ConfigError('invalid configuration: OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1');
  const root: Record<string, () => Sampler> = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: () => new TraceIdRatioBasedSampler(ratio),
  };
  const base = name.replace(/^parentbased_/, '');
  if (!root[base])
    throw new ConfigError(
      `invalid configuration: OTEL_TRACES_SAMPLER=${name} is not supported: set it to (parentbased_)always_on, always_off or traceidratio`,
    );
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root: root[base]() }) : root[base]();
}

/**
 * Starts OpenTelemetry's tracing for this process (what tracingWanted asked for) and installs it as the process's
 * tracer; the returned function flushes the spans still buffered and stops it.
 */
export async function startTracing(
  wanted: { exporter: 'otlp' | 'console' },
  env: NodeJS.ProcessEnv,
  role: string,
): Promise<() => Promise<void>> {
  const trusted = parentTrustFrom(env);
  const exporter = await exporterFor(wanted.exporter, env);
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'attestation-service', 'attestation_service.role': role }))
    .merge(detectResources({ detectors: [envDetector] }));
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const processor = new BatchSpanProcessor({
    exporter,
    ...(Number.isFinite(delay) && delay > 0 && { scheduledDelayMillis: delay }),
  });
  const provider = new TracerProvider({ resource, sampler: samplerFrom(env), spanProcessors: [processor] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const otel = provider.getTracer('attestation-service');

  const parentOf = (options: SpanOptions | undefined): Context => {
    if (options?.root) return ROOT_CONTEXT;
    const parent = parse(options?.parent);
    return parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : context.active();
  };
  const linksOf = (options: SpanOptions | undefined): Link[] =>
    (options?.links ?? []).flatMap((traceparent) => {
      const linked = parse(traceparent);
      return linked ? [{ context: linked }] : [];
    });
  const start = (name: string, options: SpanOptions | undefined, parent: Context, startTime?: Date) =>
    otel.startSpan(
      name,
      {
        kind: KINDS[options?.kind ?? 'internal'],
        attributes: attributes(options?.attributes),
        links: linksOf(options),
        ...(startTime && { startTime }),
      },
      parent,
    );

  const tracer: Tracer = {
    on: true,
    span(name, fn, options) {
      const parent = parentOf(options);
      const span = start(name, options, parent);
      return context.with(trace.setSpan(parent, span), async () => {
        const active = handle(span);
        try {
          return await fn(active);
        } catch (error) {
          active.fail(error);
          throw error;
        } finally {
          span.end();
        }
      });
    },
    record(name, finished) {
      const span = start(name, finished, parentOf(finished), finished.start);
      span.end(finished.end);
      return format(span.spanContext());
    },
    server(method, traceparent, clientAddress) {
      const caller = parse(traceparent);
      // an untrusted caller's trace is only linked: its sampled flag must not decide what this service exports
      const followed = caller && trusted(clientAddress);
      const parent = followed ? trace.setSpanContext(ROOT_CONTEXT, caller) : ROOT_CONTEXT;
      const options: SpanOptions = { kind: 'server', attributes: { 'http.request.method': method } };
      const span = start(method, { ...options, links: caller && !followed ? [traceparent] : [] }, parent);
      const active = trace.setSpan(parent, span);
      return {
        run: (fn) => context.with(active, fn),
        end(route, status) {
          span.updateName(`${method} ${route}`);
          span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    detached: (fn) => context.with(ROOT_CONTEXT, fn),
    traceparent() {
      const span = trace.getSpan(context.active());
      return span ? format(span.spanContext()) : undefined;
    },
    logIds() {
      const span = trace.getSpan(context.active())?.spanContext();
      return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
    },
  };
  const uninstall = installTracer(tracer);
  return async () => {
    uninstall();
    await provider.shutdown().catch(() => undefined); // an unreachable collector must not hold up a stop
    contextManager.disable();
  };
}
