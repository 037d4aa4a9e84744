import { dashboardOff, type Config } from '@attestation-service/server';
import { publishServiceState } from './service-record.ts';
import { startService } from './start.ts';

/** `serve [--api] [--worker] [--verify]`: runs the parts named (all when none is) until SIGINT or SIGTERM. */
export async function serve(
  config: Config,
  flags: { api?: boolean | undefined; worker?: boolean | undefined; verify?: boolean | undefined },
): Promise<void> {
  const all = !flags.api && !flags.worker && !flags.verify;
  // the verification app alone needs no database and no relayer key, only the API and the chain
  const service =
    flags.verify && !flags.api && !flags.worker
      ? await (await import('./verify-part.ts')).startVerifyOnly(config)
      : await startService(config, {
          parts: { api: all || !!flags.api, worker: all || !!flags.worker, verify: all || !!flags.verify },
        });
  // the CLI and `doctor` of this DATA_DIR find the service by it; serving goes on without it
  const unpublish =
    'apiUrl' in service
      ? await publishServiceState(config, service, { api: all || !!flags.api }).catch((error: unknown) => {
          const code = (error as NodeJS.ErrnoException).code ?? 'error';
          console.error(`attestation-service: cannot write service.json in ${config.dataDir} (${code})`);
          return undefined;
        })
      : undefined;
  let stopping = false;
  // in order (docs/operations.md): stop accepting, drain the requests in flight, the worker, the chain, the database
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error(`attestation-service: ${signal} again: stopping now`);
      process.exit(130);
    }
    stopping = true;
    console.error(`attestation-service: stopping after the requests in flight (${signal} again to stop at once)`);
    const exit = async (code: number) => {
      await unpublish?.().catch(() => undefined);
      process.exit(code);
    };
    service.stop().then(
      () => exit(0),
      () => exit(1),
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  const parts =
    'apiUrl' in service
      ? [
          all || flags.api ? `API on ${service.apiUrl} (docs at ${service.apiUrl}/docs)` : '',
          all || flags.worker
            ? `worker running${service.workerHealthUrl ? ` (/healthz, /readyz on ${service.workerHealthUrl})` : ''}`
            : '',
          service.verifyUrl ? `verification app on ${service.verifyUrl}` : '',
          service.mailInboxUrl ? `mail inbox (development) on ${service.mailInboxUrl}` : '',
        ]
      : [`verification app on ${service.url}`];
  const where = parts.filter(Boolean).join(', ');
  const setup = 'setupLink' in service ? service.setupLink : undefined;
  // every start says where everything is, not only the first: the dashboard, and the dev chain verifyAnchor needs
  const off = dashboardOff(config);
  if ('apiUrl' in service && (all || flags.api))
    console.error(
      off
        ? `Dashboard: off. ${off}`
        : `Dashboard: ${config.publicBaseUrl}/dashboard/` +
            (setup ? ` — first owner: open ${setup.url} (one use, valid until ${setup.expiresAt})` : ''),
    );
  const chain = 'infrastructure' in service ? service.infrastructure.chain : undefined;
  if (chain?.dev) console.error(`Dev chain: RPC ${chain.rpcUrl} (chain id ${chain.chainId}), EAS at ${chain.eas}`);
  console.error(`attestation-service: ${where}; Ctrl-C stops`);
}
