import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

/** `https://app.example.com` as it is: a scheme, a host and a port, no path, query or trailing slash. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}
import { z } from 'zod';

/** anvil's account 0: public, so accepted only on a development chain (chain/dev-keys.ts). */
export const DEV_RELAYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const port = z.coerce.number().int().min(0).max(65_535);
const url = z.url({ protocol: /^https?$/ });
const hex32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex characters');
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x followed by 40 hex characters');
const rpcUrls = z
  .string()
  .transform((v) => v.split(',').map((u) => u.trim()))
  .pipe(
    z
      .array(z.url({ protocol: /^(https?|wss?)$/, error: 'must be a comma-separated list of http(s) or ws(s) URLs' }))
      .min(1)
      .max(8, 'takes at most 8 URLs')
      .refine((list) => new Set(list).size === list.length, 'lists the same URL twice'),
  );
const duration = z.string().regex(/^\d+(ms|s|m|h)$/, 'must be a duration such as 30s, 5m or 2h');
// the message never carries the value: a config error is printed and logged
const secret = z.string().min(32, 'must be at least 32 characters: 32+ random bytes, e.g. `openssl rand -base64 32`');

const DURATION_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Parses `30s`, `5m`, `2h`, `250ms` into milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${text}`);
  return Number(match[1]) * DURATION_MS[match[2] as keyof typeof DURATION_MS];
}

const schema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  VERIFY_PORT: port.default(8081),
  METRICS_PORT: port.optional(),
  PUBLIC_BASE_URL: url.optional(),
  VERIFY_BASE_URL: url.optional(),
  API_URL: url.optional(),
  VERIFY_API_KEY: z
    .string()
    .regex(/^svc_(free|pro|enterprise)_[0-9a-f]{12}_[0-9a-f]{32}$/, 'must be an API key (svc_<tier>_<prefix>_<secret>)')
    .optional(),
  ATTESTER_ADDRESS: address.optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATABASE_STATEMENT_TIMEOUT: duration.default('10s'),
  DATABASE_ACQUIRE_TIMEOUT: duration.default('5s'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(1000).default(14),
  WORKER_DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  WORKER_DATABASE_POOL_SIZE: z.coerce.number().int().min(4).max(1000).default(16),
  WORKER_HEALTH_PORT: port.default(8082),
  SHUTDOWN_DRAIN_TIMEOUT: duration.default('20s'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  CHAIN_RPC_URL: rpcUrls.optional(),
  CHAIN_ID: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'must be a chain id (a positive integer)')
    .transform(Number)
    .optional(),
  RELAYER_PRIVATE_KEY: hex32.optional(),
  RELAYER_SIGNER_URL: url.optional(),
  RELAYER_ADDRESS: address.optional(),
  EAS_ADDRESS: address.optional(),
  SCHEMA_REGISTRY_ADDRESS: address.optional(),
  CONFIRMATIONS: z.coerce.number().int().min(1).max(64).default(1),
  MAX_FEE_PER_GAS_GWEI: z.coerce.number().positive().max(100_000).default(500),
  RELAYER_MIN_BALANCE_ETH: z.coerce.number().min(0).default(0.001),
  RELAY_STUCK_AFTER: duration.optional(),
  RELAY_MAX_ITEMS_PER_TX: z.coerce.number().int().min(1).max(1000).default(100),
  RELAY_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(64).default(4),
  RELAY_GAS_TARGET: z.coerce.number().int().min(100_000).max(1_000_000_000).optional(),
  WEBHOOK_ALLOW_PRIVATE_URLS: boolean.default(false),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .default('30s,5m,30m,2h')
    .pipe(
      z
        .string()
        .refine(
          (v) => v.split(',').length === 4 && v.split(',').every((d) => duration.safeParse(d.trim()).success),
          'must be four comma-separated durations such as 30s,5m,30m,2h',
        ),
    ),
  ANCHOR_INTERVAL: z
    .string()
    .default('60s')
    .pipe(
      z.string().refine((v) => v === '0' || duration.safeParse(v).success, 'must be 0 (off) or a duration such as 60s'),
    ),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(512).default(64),
  // how many proxies in front append to X-Forwarded-For; true (one) and false (none) are kept from when it was a flag
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|yes|no|\d{1,2})$/, 'must be the number of proxies in front (0 for none), or true (one)')
    .default('0')
    .transform((v) => (v === 'true' || v === 'yes' ? 1 : v === 'false' || v === 'no' ? 0 : Number(v))),
  DASHBOARD_SIGNUP: z.enum(['open', 'closed']).default('closed'),
  // origins (scheme://host[:port], comma-separated) whose pages may call the API with a key
  CORS_ALLOWED_ORIGINS: z
    .string()
    .max(4096)
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every(isOrigin), 'must be origins such as https://app.example.com, comma-separated'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SERVICE_SECRET: secret.optional(),
  SERVICE_SECRET_PREVIOUS: secret.optional(),
  NODE_ENV: z.string().optional(),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().min(3).max(200).optional(),
  OPERATOR_EMAIL: z.email().optional(),
  C2PA_SIGNING_CERT: z
    .string()
    .includes('-----BEGIN CERTIFICATE-----', { error: 'must be PEM text: the signing certificate, then its CA chain' })
    .optional(),
  C2PA_SIGNING_KEY: z
    .string()
    .regex(/-----BEGIN (EC )?PRIVATE KEY-----/, 'must be PEM text: the private key of the signing certificate')
    .optional(),
  C2PA_TSA_URL: url.optional(),
  C2PA_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(512 * 1024 * 1024)
    .default(50 * 1024 * 1024),
  C2PA_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
});

export type Config = ReturnType<typeof toConfig>;

/** The host a browser on this machine reaches a listener on HOST by: `localhost` for loopback and wildcards. */
function browserHost(host: string): string {
  if (['127.0.0.1', '0.0.0.0', '::'].includes(host)) return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** A value that prints as `[redacted]` (logs, JSON, inspect), so a config dump never shows it; `reveal()` reads it. */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toJSON(): string {
    return '[redacted]';
  }
  toString(): string {
    return '[redacted]';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Secret [redacted]';
  }
}

/** Thrown at boot for a malformed variable; its message is the one line the operator sees. */
export class ConfigError extends Error {}

/** Reads and validates every environment variable the service uses, once, at boot. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid configuration: ${String(issue.path[0])} ${issue.message}`);
  }
  const { METRICS_PORT, PORT, VERIFY_PORT } = parsed.data;
  // the worker's URL replaces DATABASE_URL, which is also what says this is a real deployment
  if (parsed.data.WORKER_DATABASE_URL !== undefined && parsed.data.DATABASE_URL === undefined)
    throw new ConfigError('invalid configuration: WORKER_DATABASE_URL needs DATABASE_URL (the API and the CLI use it)');
  // the metrics are unauthenticated: never on a port the public reaches (docs/operations.md, "Metrics")
  if (METRICS_PORT !== undefined && METRICS_PORT !== 0 && (METRICS_PORT === PORT || METRICS_PORT === VERIFY_PORT))
    throw new ConfigError('invalid configuration: METRICS_PORT must differ from PORT and VERIFY_PORT');
  // two sources of signatures would be two attesters: which one signs must never be a guess
  if (parsed.data.RELAYER_PRIVATE_KEY !== undefined && parsed.data.RELAYER_SIGNER_URL !== undefined)
    throw new ConfigError(
      'invalid configuration: RELAYER_PRIVATE_KEY and RELAYER_SIGNER_URL are both set; set one (the signer keeps the key out of the service)',
    );
  // a chain without its key (or a key without its chain) is half a signer: never guess which was meant
  if ((parsed.data.C2PA_SIGNING_CERT === undefined) !== (parsed.data.C2PA_SIGNING_KEY === undefined))
    throw new ConfigError('invalid configuration: set both C2PA_SIGNING_CERT and C2PA_SIGNING_KEY, or neither');
  return toConfig(parsed.data);
}

/** How mail leaves: SMTP_URL; in development without it, a MailDev started with the service; else not at all. */
function mailSettings(v: z.infer<typeof schema>) {
  const production = v.DATABASE_URL !== undefined || v.NODE_ENV === 'production';
  const mode: 'smtp' | 'catcher' | 'off' = v.SMTP_URL ? 'smtp' : production ? 'off' : 'catcher';
  return {
    mode,
    smtpUrl: v.SMTP_URL === undefined ? undefined : new Secret(v.SMTP_URL),
    from: v.MAIL_FROM ?? 'Attestation Service <no-reply@localhost>',
    operatorEmail: v.OPERATOR_EMAIL,
  };
}

function toConfig(v: z.infer<typeof schema>) {
  const trimSlash = (s: string) => s.replace(/\/+$/, '');
  return {
    port: v.PORT,
    host: v.HOST,
    verifyPort: v.VERIFY_PORT,
    /** Where `/metrics` listens (on HOST); unset, nowhere. */
    metricsPort: v.METRICS_PORT,
    // a host name, not an address: the dashboard's passkeys need one (an IP address is no WebAuthn relying party)
    publicBaseUrl: trimSlash(v.PUBLIC_BASE_URL ?? `http://${browserHost(v.HOST)}:${v.PORT}`),
    verifyBaseUrl: trimSlash(v.VERIFY_BASE_URL ?? `http://${browserHost(v.HOST)}:${v.VERIFY_PORT}`),
    /** Where `serve --verify` on its own reads the API (default PUBLIC_BASE_URL); the service attester it trusts. */
    verify: {
      apiUrl: v.API_URL === undefined ? undefined : trimSlash(v.API_URL),
      attester: (v.ATTESTER_ADDRESS ?? v.RELAYER_ADDRESS) as `0x${string}` | undefined,
      apiKey: v.VERIFY_API_KEY,
    },
    dataDir: resolve(v.DATA_DIR),
    databaseUrl: v.DATABASE_URL,
    /** How long a request waits on the database before it answers 503 (docs/decisions.md, "Input rules"; db/sql.ts). */
    databaseTimeouts: {
      statementMs: parseDuration(v.DATABASE_STATEMENT_TIMEOUT),
      acquireMs: parseDuration(v.DATABASE_ACQUIRE_TIMEOUT),
    },
    /** The most connections a process's pools open: an API's (`api`), a worker's (`worker`; db/pool-budget.ts). */
    databasePoolSize: { api: v.DATABASE_POOL_SIZE, worker: v.WORKER_DATABASE_POOL_SIZE },
    /** What a process running the worker connects to instead of DATABASE_URL (it needs a session: no pooler). */
    workerDatabaseUrl: v.WORKER_DATABASE_URL,
    /** Where `serve --worker` answers /healthz and /readyz (on HOST); 0: a free port. */
    workerHealthPort: v.WORKER_HEALTH_PORT,
    /** How long a stopping API lets its requests in flight finish before it cuts their connections (ms). */
    shutdownDrainMs: parseDuration(v.SHUTDOWN_DRAIN_TIMEOUT),
    redisUrl: v.REDIS_URL,
    chain: {
      /** The first of CHAIN_RPC_URL's endpoints (the preferred one), or undefined for the embedded anvil. */
      rpcUrl: v.CHAIN_RPC_URL?.[0],
      /** Every CHAIN_RPC_URL endpoint, in the operator's order of preference (chain/transport.ts). */
      rpcUrls: v.CHAIN_RPC_URL ?? [],
      /** CHAIN_ID: every endpoint must answer it; unset, they must agree with each other. */
      chainId: v.CHAIN_ID,
      /** RELAYER_PRIVATE_KEY, else anvil's public account 0 (refused off a development chain: chain/dev-keys.ts). */
      relayerPrivateKey: (v.RELAYER_PRIVATE_KEY ?? DEV_RELAYER_KEY) as `0x${string}`,
      /** Who signs: a key in the process (given, or the development default), or a JSON-RPC signer holding it. */
      signer: (v.RELAYER_SIGNER_URL === undefined
        ? { kind: 'key', given: v.RELAYER_PRIVATE_KEY !== undefined, address: v.RELAYER_ADDRESS }
        : { kind: 'remote', url: v.RELAYER_SIGNER_URL, address: v.RELAYER_ADDRESS }) as
        | { kind: 'key'; given: boolean; address: `0x${string}` | undefined }
        | { kind: 'remote'; url: string; address: `0x${string}` | undefined },
      easAddress: v.EAS_ADDRESS as `0x${string}` | undefined,
      schemaRegistryAddress: v.SCHEMA_REGISTRY_ADDRESS as `0x${string}` | undefined,
      confirmations: v.CONFIRMATIONS,
      maxFeeCapWei: BigInt(Math.round(v.MAX_FEE_PER_GAS_GWEI * 1e9)),
      minBalanceWei: BigInt(Math.round(v.RELAYER_MIN_BALANCE_ETH * 1e9)) * 1_000_000_000n,
      maxItemsPerTx: v.RELAY_MAX_ITEMS_PER_TX,
      /** Relay transactions in flight at consecutive nonces. */
      maxInFlight: v.RELAY_MAX_IN_FLIGHT,
      /** Gas one relay transaction may use; undefined: half the latest block's gas limit. */
      gasTarget: v.RELAY_GAS_TARGET === undefined ? undefined : BigInt(v.RELAY_GAS_TARGET),
      stuckAfterMs: v.RELAY_STUCK_AFTER === undefined ? undefined : parseDuration(v.RELAY_STUCK_AFTER),
    },
    webhooks: {
      allowPrivateUrls: v.WEBHOOK_ALLOW_PRIVATE_URLS,
      retryDelaysMs: v.WEBHOOK_RETRY_DELAYS.split(',').map((d) => parseDuration(d.trim())),
    },
    /** How often the worker anchors the off-chain attestations made since the last anchor (ms); 0: never. */
    anchorIntervalMs: v.ANCHOR_INTERVAL === '0' ? 0 : parseDuration(v.ANCHOR_INTERVAL),
    workerConcurrency: v.WORKER_CONCURRENCY,
    /** `open`: anyone may sign up and make an account on the free plan; `closed`: by invitation only. */
    dashboard: { signup: v.DASHBOARD_SIGNUP },
    /** Origins whose pages may call with a key; public reads answer every origin (http/cors.ts). */
    corsAllowedOrigins: v.CORS_ALLOWED_ORIGINS,
    /** How many proxies in front append to X-Forwarded-For (http/request.ts, clientIpOf); 0: the socket's address. */
    trustProxy: v.TRUST_PROXY,
    logLevel: v.LOG_LEVEL,
    /** SERVICE_SECRET and the one it replaced; unset in development: a file in DATA_DIR (system/service-secret.ts). */
    serviceSecret: {
      current: v.SERVICE_SECRET === undefined ? undefined : new Secret(v.SERVICE_SECRET),
      previous: v.SERVICE_SECRET_PREVIOUS === undefined ? undefined : new Secret(v.SERVICE_SECRET_PREVIOUS),
    },
    /** Content Credentials (credentials/c2pa/): the signer's PEM chain and key; unset in development, a CA in DATA_DIR. */
    c2pa: {
      certificateChain: v.C2PA_SIGNING_CERT,
      signingKey: v.C2PA_SIGNING_KEY === undefined ? undefined : new Secret(v.C2PA_SIGNING_KEY),
      tsaUrl: v.C2PA_TSA_URL,
      /** The largest asset taken (bytes); each signing holds a few times this in its worker. */
      maxBytes: v.C2PA_MAX_BYTES,
      /** Assets signed at once, each in its own worker thread. */
      // one core left to the event loop: other clients' requests stay fast while assets sign
      concurrency: v.C2PA_CONCURRENCY ?? Math.max(1, availableParallelism() - 1),
    },
    /** Outgoing mail: SMTP_URL, else the embedded MailDev in development, else none. */
    mail: mailSettings(v),
    /** Why this is a real deployment (no development stand-ins for secrets), or undefined in development. */
    productionBecause:
      v.DATABASE_URL !== undefined
        ? 'DATABASE_URL is set'
        : v.NODE_ENV === 'production'
          ? 'NODE_ENV=production'
          : undefined,
  };
}
