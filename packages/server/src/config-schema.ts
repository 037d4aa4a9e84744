import { isIP } from 'node:net';
import { z } from 'zod';

/** `https://app.example.com` as it is: a scheme, a host and a port, no path, query or trailing slash. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

/** `192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53` or `[2001:db8::53]:5353`, as node:dns's setServers takes them. */
function isDnsServer(value: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  const [host, port] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : isIP(value)
      ? [value, undefined]
      : [value.replace(/:\d{1,5}$/, ''), /:(\d{1,5})$/.exec(value)?.[1]];
  return isIP(host) !== 0 && (port === undefined || Number(port) <= 65_535);
}

/** A comma-separated list of origins, each checked. */
const originList = z
  .string()
  .max(4096)
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  )
  .refine((list) => list.every(isOrigin), 'must be origins such as https://app.example.com, comma-separated');

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

/** The environment's variables as the service reads them: each one's type, bounds and default (config.ts maps them). */
export const schema = z.object({
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
  // MiB of public reads' answers an API process holds while their records stand (attestations/held-answers.ts)
  ANSWER_CACHE_MB: z.coerce.number().int().min(0).max(4096).default(64),
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
  RELAY_LINGER: duration.default('250ms'),
  RELAY_MAX_ITEMS_PER_TX: z.coerce.number().int().min(1).max(1000).default(100),
  RELAY_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(64).default(4),
  RELAY_GAS_TARGET: z.coerce.number().int().min(100_000).max(1_000_000_000).optional(),
  WEBHOOK_ALLOW_PRIVATE_URLS: boolean.default(false),
  // DNS servers (IP or IP:port, comma-separated) the domain proofs ask for TXT records; unset: the system's
  DOMAIN_VERIFY_DNS_SERVERS: z
    .string()
    .max(1024)
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every(isDnsServer), 'must be DNS server addresses (IP or IP:port), comma-separated'),
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
  // the IPv6 network a client's per-address limits count against (limits/client-network.ts)
  RATE_LIMIT_IPV6_PREFIX: z.coerce.number().int().min(32).max(128).default(64),
  DASHBOARD_SIGNUP: z.enum(['open', 'closed']).default('closed'),
  // open sign-up: accounts one person may open (accounts/account-caps.ts), and one client network a day
  // (limits/account-openings.ts)
  DASHBOARD_ACCOUNTS_PER_USER: z.coerce.number().int().min(1).max(1000).default(3),
  DASHBOARD_ACCOUNTS_PER_NETWORK_PER_DAY: z.coerce.number().int().min(1).max(100_000).default(10),
  // origins (scheme://host[:port], comma-separated) whose pages may call the API with a key
  CORS_ALLOWED_ORIGINS: originList,
  // origins besides PUBLIC_BASE_URL's that serve the dashboard and sign in to it (another host name, say)
  DASHBOARD_ORIGINS: originList,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  SERVICE_SECRET: secret.optional(),
  SERVICE_SECRET_PREVIOUS: secret.optional(),
  NODE_ENV: z.string().optional(),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().min(3).max(200).optional(),
  OPERATOR_EMAIL: z.email().optional(),
  // invitation mails a day a dashboard member may send, and one account's members together (limits/invitation-mails.ts)
  INVITATIONS_PER_DAY_PER_MEMBER: z.coerce.number().int().min(1).max(10_000).default(25),
  INVITATIONS_PER_DAY_PER_ACCOUNT: z.coerce.number().int().min(1).max(10_000).default(50),
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
