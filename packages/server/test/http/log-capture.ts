import { inject } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startService, type RunningService } from '../../src/main.ts';
import { createTestDatabase } from '../support/database.ts';
import { TEST_SERVICE_SECRET } from '../support/secret.ts';
import { fundedKey } from '../support/service.ts';
import '../support/provided.ts';

/** Parsed log lines, as the service wrote them. */
export type LogLine = Record<string, unknown> & { msg?: string; requestId?: string };

/** The real service (API only) whose log lines the test reads; `env` adds to or overrides the test config. */
export async function startLoggedService(
  env: Record<string, string> = {},
): Promise<{ service: RunningService; lines: LogLine[]; raw: string[] }> {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const log = createLogger('info', {
    write: (line: string) => void (raw.push(line), lines.push(JSON.parse(line) as LogLine)),
  });
  const chain = inject('chain');
  const config = loadConfig({
    PORT: '0',
    DATABASE_URL: env.DATABASE_URL ?? (await createTestDatabase()),
    TRUST_PROXY: 'true',
    CHAIN_RPC_URL: chain.rpcUrl,
    EAS_ADDRESS: chain.eas,
    SCHEMA_REGISTRY_ADDRESS: chain.schemaRegistry,
    RELAYER_PRIVATE_KEY: await fundedKey(chain.rpcUrl),
    SERVICE_SECRET: TEST_SERVICE_SECRET,
    ...env,
  });
  const service = await startService(config, { parts: { api: true, worker: false }, log });
  return { service, lines, raw };
}
