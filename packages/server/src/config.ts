import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { DEV_RELAYER_KEY, parseDuration, schema } from './config-schema.ts';

export { DEV_RELAYER_KEY } from './config-schema.ts';

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
    invitationCaps: { perMember: v.INVITATIONS_PER_DAY_PER_MEMBER, perAccount: v.INVITATIONS_PER_DAY_PER_ACCOUNT },
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
    /** Bytes of public reads' answers an API process holds while their records stand (attestations/held-answers.ts). */
    answerCacheBytes: v.ANSWER_CACHE_MB * 1024 * 1024,
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
      /** How long a short relay transaction from idle waits for more items (chain/flight.ts, `lingerWaits`). */
      lingerMs: parseDuration(v.RELAY_LINGER),
    },
    /** Domain proofs (domains/): the DNS servers asked for TXT records; empty: the system's. */
    domains: { dnsServers: v.DOMAIN_VERIFY_DNS_SERVERS },
    webhooks: {
      allowPrivateUrls: v.WEBHOOK_ALLOW_PRIVATE_URLS,
      retryDelaysMs: v.WEBHOOK_RETRY_DELAYS.split(',').map((d) => parseDuration(d.trim())),
    },
    /** How often the worker anchors the off-chain attestations made since the last anchor (ms); 0: never. */
    anchorIntervalMs: v.ANCHOR_INTERVAL === '0' ? 0 : parseDuration(v.ANCHOR_INTERVAL),
    workerConcurrency: v.WORKER_CONCURRENCY,
    /** `open`: anyone may sign up and make an account on the free plan; `closed`: by invitation only. */
    dashboard: {
      signup: v.DASHBOARD_SIGNUP,
      /** DASHBOARD_ACCOUNTS_PER_USER and _PER_NETWORK_PER_DAY: how many accounts open sign-up lets be opened. */
      accountCaps: {
        perUser: v.DASHBOARD_ACCOUNTS_PER_USER,
        perNetworkPerDay: v.DASHBOARD_ACCOUNTS_PER_NETWORK_PER_DAY,
      },
      /** DASHBOARD_ORIGINS; and whether PUBLIC_BASE_URL was set, not defaulted (a deployment's dashboard needs it). */
      origins: v.DASHBOARD_ORIGINS,
      publicBaseUrlSet: v.PUBLIC_BASE_URL !== undefined,
    },
    /** Origins whose pages may call with a key; public reads answer every origin (http/cors.ts). */
    corsAllowedOrigins: v.CORS_ALLOWED_ORIGINS,
    /** How many proxies in front append to X-Forwarded-For (http/request.ts, clientIpOf); 0: the socket's address. */
    trustProxy: v.TRUST_PROXY,
    /** Per-address limits count an IPv6 client by this prefix of its address (limits/client-network.ts). */
    rateLimitIpv6Prefix: v.RATE_LIMIT_IPV6_PREFIX,
    logLevel: v.LOG_LEVEL,
    /** `auto`: readable lines at a terminal, JSON when piped (log.ts). */
    logFormat: v.LOG_FORMAT,
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
