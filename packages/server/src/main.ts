import { buildServices } from './app.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createApiHandler, listen } from './http/server.ts';
import { openInfrastructure, type Infrastructure } from './infrastructure.ts';
import { createLogger, type Logger } from './log.ts';
import type { ProcessMetrics } from './metrics.ts';
import { appRouter } from './router.ts';
import { flushPeriodically } from './keys/last-used.ts';
import { authMount } from './dashboard/auth-mount.ts';
import { dashboardOff } from './dashboard/origins.ts';
import { auditExportMount } from './audit/dashboard-export-mount.ts';
import { AUTH_BASE_PATH } from './dashboard/auth.ts';
import { INVITATION_PATH } from './accounts/invitation-issue.ts';
import { startContentCredentials } from './credentials/c2pa/api.ts';
import type { Mount } from './http/server.ts';
import type { Services } from './services.ts';
import type { ReadinessCheck } from './system/health.ts';
import { createTeardown, type Teardown } from './system/teardown.ts';
import { tracer, tracingWanted } from './tracing/tracing.ts';
import { loadServiceSecrets } from './system/service-secret.ts';
import { runnerComponent } from './worker.ts';
import { startWorkerPart } from './worker-part.ts';
import { poolBudget } from './db/pool-budget.ts';
import { requireSession } from './db/session-check.ts';
import { portsOf, requirePortsFree } from './system/ports.ts';
import { closeServer } from './http/close.ts';
import { unreachableDatabase } from './db/unreachable.ts';
import { systemResolver, type Resolver } from './webhooks/url-guard.ts';

export interface ServeParts {
  api: boolean;
  worker: boolean;
}

export interface StartOptions {
  parts?: ServeParts;
  clock?: Clock;
  log?: Logger;
  readiness?: Record<string, ReadinessCheck>;
  /** DNS for webhook URLs (tests inject one). */
  resolve?: Resolver;
  /** Sent by a verification app in the same process: its visitors' addresses count, not its own (http/request.ts). */
  proxyToken?: string | undefined;
  /** Handlers the launcher mounts on the API's port (the dashboard's pages). */
  mounts?: Mount[];
}

export interface RunningService {
  /** The API's base URL as bound (the real port when PORT=0). */
  apiUrl: string;
  databaseUrl: string;
  /** The metrics listener's base URL as bound (`${metricsUrl}/metrics`), when METRICS_PORT is set. */
  metricsUrl?: string;
  /** A worker without the API: where its /healthz and /readyz answer (WORKER_HEALTH_PORT). */
  workerHealthUrl?: string;
  /** Where on-chain attestations go (the embedded anvil's port changes at each start). */
  chain: { rpcUrl: string; chainId: number; eas: string };
  services: Services;
  /** What the service was built from: for tests and tools that read or seed the database, never for procedures. */
  infrastructure: Infrastructure;
  /** The development mail catcher's web inbox (the embedded default without SMTP_URL), where sent mail is read. */
  mailInboxUrl?: string;
  /** The one-time owner setup link, while the database has no dashboard member yet (the API part prints it). */
  setupLink?: { url: string; expiresAt: string } | undefined;
  stop(): Promise<void>;
}

/**
 * The service's processes from one infrastructure: metrics → services → worker → HTTP. `stop()` undoes it in reverse
 * (the metrics answer while the API drains and the worker stops).
 */
export async function startService(given: Config, opts: StartOptions = {}): Promise<RunningService> {
  const parts = opts.parts ?? { api: true, worker: true };
  // the worker's URL bypasses the API's transaction-mode pooler: it needs a session (docs/operations.md)
  const config = parts.worker && given.workerDatabaseUrl ? { ...given, databaseUrl: given.workerDatabaseUrl } : given;
  const secrets = await loadServiceSecrets(config); // before anything starts: a missing secret stops the boot
  await requirePortsFree(portsOf(config, parts)); // likewise a busy port
  if (parts.worker && config.databaseUrl)
    await requireSession(config.databaseUrl, 'the worker').catch((error: unknown) => {
      const setting = given.workerDatabaseUrl ? 'WORKER_DATABASE_URL' : 'DATABASE_URL';
      throw unreachableDatabase(error, config.databaseUrl!, setting) ?? error;
    });
  const budget = poolBudget(config.databasePoolSize, parts);
  const tracing = await startTracingPart(config, parts, opts.log);
  const infra = await openInfrastructure(config, {
    clock: opts.clock,
    log: tracing?.log ?? opts.log,
    readiness: opts.readiness,
    poolSizes: budget,
  });
  const { log, chain } = infra;
  const stack = createTeardown(log);
  if (tracing) stack.push(tracing.stop); // last: the spans of the stop itself are flushed too
  stack.push(infra.close);
  try {
    const metrics = await startMetricsPart(infra, stack);
    const webhookPolicy = { allowPrivate: config.webhooks.allowPrivateUrls, resolve: opts.resolve ?? systemResolver };
    const services = buildServices(infra, {
      webhookPolicy,
      secrets,
      refusals: metrics?.refusals,
    });
    stack.push(flushPeriodically(services.keys.lastUse, log)); // after the API stops: its last requests' uses too
    // the sending side (nodemailer, and MailDev in development) only where jobs run: an API replica only queues mail
    const mail = parts.worker
      ? await (await import('./mail/worker.ts')).startMailWorker({ ...infra, secrets }, stack)
      : undefined;
    const worker = parts.worker
      ? await startWorkerPart(infra, webhookPolicy, stack, metrics, {
          poolSize: budget.jobs,
          probes: !parts.api,
          mailTasks: mail?.tasks ?? {},
          secrets,
        })
      : undefined;
    let apiUrl = config.publicBaseUrl;
    if (worker && parts.api) services.health.report(() => runnerComponent(worker.runner));
    if (parts.api) apiUrl = await startApiPart(infra, services, opts, stack, metrics);
    // nobody can sign in to the dashboard yet: the first owner's way in (docs/decisions.md, "Dashboard sign-in")
    const setupLink = parts.api ? await services.invitations.ownerSetupLink() : undefined;
    // the link is a credential: serve prints it on the terminal; the log says only that there is one
    if (setupLink) log.info({ expiresAt: setupLink.expiresAt }, 'dashboard owner setup link made (serve prints it)');
    const off = parts.api ? dashboardOff(config) : undefined;
    if (off) log.warn(off);
    const where = { rpcUrl: chain.rpcUrl, chainId: chain.chainId, eas: chain.eas };
    return {
      apiUrl,
      ...(metrics && { metricsUrl: metrics.url }),
      ...(worker?.healthUrl && { workerHealthUrl: worker.healthUrl }),
      ...(mail?.inboxUrl && { mailInboxUrl: mail.inboxUrl }),
      databaseUrl: infra.databaseUrl,
      chain: where,
      services,
      infrastructure: infra,
      setupLink,
      stop: stack.run,
    };
  } catch (error) {
    await stack.run();
    throw error;
  }
}

/**
 * OpenTelemetry's tracing when the OTEL_* variables ask for it (docs/operations.md, "Tracing"); its modules are loaded
 * only then. Log lines then carry the active span's ids (a logger passed in keeps its own form).
 */
async function startTracingPart(
  config: Config,
  parts: ServeParts,
  given: Logger | undefined,
): Promise<{ stop: () => Promise<void>; log: Logger | undefined } | undefined> {
  const wanted = tracingWanted(process.env);
  if (!wanted) return undefined;
  const { startTracing } = await import('./tracing/sdk.ts');
  const role = parts.api && parts.worker ? 'all' : parts.api ? 'api' : 'worker';
  const stop = await startTracing(wanted, process.env, role);
  return {
    stop,
    log: given ?? createLogger(config.logLevel, undefined, () => tracer().logIds() ?? {}, config.logFormat),
  };
}

/** `/metrics` on METRICS_PORT (docs/operations.md, "Metrics"), when it is set; its module is loaded only then. */
async function startMetricsPart(infra: Infrastructure, stack: Teardown): Promise<ProcessMetrics | undefined> {
  const port = infra.config.metricsPort;
  if (port === undefined) return undefined;
  const { startMetrics } = await import('./metrics.ts');
  const metrics = await startMetrics(infra, port);
  stack.push(metrics.close);
  return metrics;
}

/** The API on PORT; returns its base URL as bound. */
async function startApiPart(
  infra: Infrastructure,
  services: Services,
  { proxyToken, mounts = [] }: Pick<StartOptions, 'proxyToken' | 'mounts'>,
  stack: Teardown,
  metrics: ProcessMetrics | undefined,
): Promise<string> {
  const { config, log } = infra;
  const credentials = await startContentCredentials({ ...infra, ...services, easContract: infra.chain.eas });
  stack.push(credentials.stop); // after the server below has closed: no request is still signing
  const handler = createApiHandler(
    { router: appRouter, services },
    {
      publicBaseUrl: config.publicBaseUrl,
      trustProxy: config.trustProxy,
      log,
      proxyToken,
      mounts: [
        authMount(services.dashboard.auth, config.publicBaseUrl, dashboardOff(config)),
        auditExportMount({ ...services, sessions: services.dashboard.sessions }),
        credentials.mount,
        ...mounts,
      ],
      corsAllowedOrigins: config.corsAllowedOrigins,
      onRequest: metrics?.onRequest,
      // a link's token is a credential: logged paths keep these prefixes only
      credentialPaths: [INVITATION_PATH, `${AUTH_BASE_PATH}/reset-password/`],
    },
  );
  const server = await listen(handler, config.port, config.host);
  stack.push(() => closeServer(server, config.shutdownDrainMs));
  const address = server.address();
  let apiUrl = config.publicBaseUrl;
  if (address && typeof address === 'object')
    apiUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  log.info({ url: apiUrl }, 'API listening');
  return apiUrl;
}
