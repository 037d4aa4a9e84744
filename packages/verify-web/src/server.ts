import { createServer, type Server } from 'node:http';
import type { Hex } from 'viem';
import { createCredentialSource } from './credentials/credential-source.ts';
import { createStatusListChecker } from './credentials/status-list.ts';
import { createRecordSource, type RecordSource } from './records.ts';
import { createEasReader, type EasReader } from './verdict/eas.ts';
import type { StatusListChecker } from './verdict/types.ts';
import { createVerifier } from './verdict/verify.ts';
import { createVerifyHandler } from './http/handler.ts';
import { createBadgeLimiter, type WindowStore } from './http/limit.ts';

export interface VerifyServerOptions {
  /** The attestation service's API, read through the SDK (public endpoints). */
  apiUrl: string;
  /** An API key to read with: the reads count against its tier's limit instead of this app's address. */
  apiKey?: string;
  /** Extra headers on every API call (`serve` passes its in-process proxy token). */
  apiHeaders?: Record<string, string>;
  /** JSON-RPC of the chain the service attests on. */
  rpcUrl: string;
  /** Trust anchors from configuration, never from our database: the chain, its EAS contract, the service attester. */
  chainId: number;
  easAddress: Hex;
  attester: Hex;
  port: number;
  host: string;
  /** This app's public address, for embed snippets and the badge's verifyUrl (default: where it listens). */
  publicBaseUrl?: string;
  /** The rate-limit store (the service's memory or Redis store); badge calls per IP per minute (default 300). */
  windows: WindowStore;
  badgeLimitPerMinute?: number;
  /** The bucket a client address counts in (the service's: an IPv6 client by its network); default the address. */
  limitBucketOf?: (ip: string) => string;
  /** How many proxies in front append to X-Forwarded-For (the service's TRUST_PROXY; true is one); default none. */
  trustProxy?: number | boolean;
  /** How long a verdict is reused, in ms (default 10 s). */
  cacheTtlMs?: number;
  /** Replaceable for tests. */
  records?: RecordSource;
  eas?: EasReader;
  statusList?: StatusListChecker;
  now?: () => number;
  onError?: (error: unknown) => void;
}

export interface RunningVerifyServer {
  url: string;
  server: Server;
  stop(): Promise<void>;
}

/** Starts the verification web app: pages per attestation, /check, the badge API. */
export async function startVerifyServer(opts: VerifyServerOptions): Promise<RunningVerifyServer> {
  const anchors = { chainId: opts.chainId, eas: opts.easAddress, attester: opts.attester };
  const records = opts.records ?? createRecordSource(opts.apiUrl, { apiKey: opts.apiKey, headers: opts.apiHeaders });
  const eas = opts.eas ?? createEasReader(opts.rpcUrl, anchors);
  const now = opts.now ?? Date.now;
  const statusList =
    opts.statusList ??
    createStatusListChecker(
      createCredentialSource(opts.apiUrl, { apiKey: opts.apiKey, headers: opts.apiHeaders }),
      now,
    );
  const verifier = createVerifier({
    records,
    eas,
    anchors,
    statusList,
    cacheTtlMs: opts.cacheTtlMs ?? 10_000,
    nowSeconds: () => Math.floor(now() / 1000),
  });
  const limit = createBadgeLimiter(opts.windows, opts.badgeLimitPerMinute ?? 300, now, opts.limitBucketOf);
  let baseUrl = opts.publicBaseUrl?.replace(/\/+$/, '') ?? '';
  const handle = createVerifyHandler({
    verifier,
    records,
    trustProxy: Number(opts.trustProxy ?? 0),
    limit,
    get verifyBaseUrl() {
      return baseUrl;
    },
  });
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      opts.onError?.(error);
      if (!res.headersSent)
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end('Internal error');
    });
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : opts.port;
  const url = `http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`;
  baseUrl ||= url;
  return {
    url,
    server,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      }),
  };
}
