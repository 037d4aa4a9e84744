// The server's public entry: what the launcher (packages/service) composes into processes and commands. Everything
// else is internal; the SDK reads only the router's types (./router).
import { accountsByName } from './accounts/store.ts';
import { auditCommand as auditCommandOf } from './audit/cli.ts';
import type { WithInfrastructure } from './infrastructure.ts';

export { loadConfig, ConfigError, DEV_RELAYER_KEY, type Config } from './config.ts';
export { describeError, UsageError } from './errors.ts';
export {
  commandInfrastructure,
  openInfrastructure,
  type Infrastructure,
  type VerifyInfrastructure,
  type WithInfrastructure,
} from './infrastructure.ts';
export { startService, type RunningService, type ServeParts, type StartOptions } from './main.ts';
/** `audit verify` over the accounts accounts/ lists (audit/ reads no accounts table: accounts/ appends audit entries). */
export const auditCommand = (
  withInfrastructure: WithInfrastructure,
  args: string[],
  flags: Parameters<typeof auditCommandOf>[2],
) => auditCommandOf(withInfrastructure, args, flags, accountsByName);
export { migrateCommand } from './db/cli.ts';
export { keysCommand } from './keys/cli.ts';
export { credentialsCommand } from './credentials/vc/cli.ts';
export { accountsCommand } from './dashboard/cli.ts';
export { deliveriesCommand, webhooksCommand } from './webhooks/cli.ts';
export { knownDeployment } from './chain/eas-artifacts.ts';
export { ensureDevEas } from './chain/deploy-eas.ts';
export { DEV_EAS_ADDRESS, DEV_SCHEMA_REGISTRY_ADDRESS } from './chain/deployments.ts';
export { PROXY_TOKEN_HEADER } from './http/request.ts';
export { DASHBOARD_HEADERS } from './dashboard/page-headers.ts';
export { dashboardOff } from './dashboard/origins.ts';
export type { WindowStore } from './limits/sliding-window.ts';
export { clientNetworkOf } from './limits/client-network.ts';
export type { Logger } from './log.ts';
export { requirePortsFree } from './system/ports.ts';
export { commandConfig } from './system/command-service.ts';
export { databaseIdentity, removeServiceState, writeServiceState, type ServiceState } from './system/service-state.ts';
export { doctorCommand } from './doctor.ts';
