import { createTransport, http, webSocket, type EIP1193RequestFn, type Transport } from 'viem';
import { ConfigError } from '../config.ts';
import { firstLine } from './broadcast.ts';
import { unreachableChain } from './reach.ts';

/** How often every endpoint is asked for its block number (its health and latency). */
const RANK_INTERVAL_MS = 2_000;
const PROBE_TIMEOUT_MS = 1_500;
/** The last samples an endpoint's health is judged on. */
const SAMPLES = 5;
/** An endpoint this many blocks behind the best one counts as failing: its nonces and receipts are stale. */
const LAG_BLOCKS = 3n;

type Sample = { ok: boolean; ms?: number };

interface Endpoint {
  /** `endpoint 2 (host)`: a provider's URL may carry its API key in the path, so logs never show more. */
  label: string;
  index: number;
  rpc: ReturnType<Transport>;
  /** The same endpoint with a short timeout, for the samples: a hanging endpoint is found within seconds. */
  probe: ReturnType<Transport>;
  /** `unchecked` until it answered its chain id (never used before); `wrong-chain` for good. */
  state: 'unchecked' | 'ok' | 'wrong-chain';
  samples: Sample[];
}

type Log = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) => void;

/** JSON-RPC codes that say the endpoint, not the chain, failed: unknown, internal, limits, method not served here. */
const ENDPOINT_CODES = new Set([-1, -32603, -32005, -32007, 429, -32601, -32004, -32002]);
/** What a node's catch-all -32000 says about the request itself (the same on every endpoint). */
const NODE_VERDICT =
  /revert|nonce|underpriced|already known|known transaction|insufficient funds|intrinsic gas|gas limit|fee cap|base fee|invalid sender/i;

/** The node's answer to a request (a revert, "nonce too low") is final; a failure of the endpoint is not. */
function endpointFailed(error: unknown): boolean {
  let status: number | undefined;
  let code: number | undefined;
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && depth < 8; depth++) {
    if (e.name === 'AbortError') return false;
    if (typeof e.status === 'number') status ??= e.status;
    if (typeof e.code === 'number') code ??= e.code;
    e = e.cause as Record<string, unknown> | undefined;
  }
  // no JSON-RPC answer: refused, reset, timed out, or an HTTP error (a wrong path, a proxy's 502, a 429)
  if (code === undefined) return status === undefined || status >= 400;
  if (status !== undefined && (status >= 429 || [403, 408, 413].includes(status))) return true;
  if (ENDPOINT_CODES.has(code)) return true;
  // geth's -32000 carries both the node's verdicts and its own troubles ("header not found")
  return code === -32000 && !NODE_VERDICT.test(firstLine(error));
}

const stability = (e: Endpoint) =>
  e.samples.length === 0 ? 1 : e.samples.filter((s) => s.ok).length / e.samples.length;
/** The median of its answered samples' times: one slow answer (a busy moment) does not demote an endpoint. */
const latency = (e: Endpoint) => {
  const timed = e.samples.filter((s) => s.ok && s.ms !== undefined).map((s) => s.ms!);
  return timed.length === 0 ? Infinity : timed.sort((a, b) => a - b)[Math.floor(timed.length / 2)]!;
};

/** The endpoints of one failover transport, and what it learnt of them. */
interface Fleet {
  endpoints: Endpoint[];
  log: Log;
  /** The chain id every endpoint must answer (known once `open` ran). */
  expected: number | undefined;
  /** The endpoint ranked first last time (a change is logged). */
  preferred: Endpoint | undefined;
}

/**
 * One transport over CHAIN_RPC_URL's endpoints: each request goes to the best one and, when that endpoint fails
 * (not when its node answers an error), to the next. Best: most healthy of its last samples, then latency (within
 * twice the fastest plus 50 ms counts as equal, so the operator's order decides between peers). An endpoint is used
 * only once it answered the expected chain id. viem's `fallback` ranks the same way but never stops its timer.
 */
export function failoverTransport(urls: string[], opts: { log?: Log; timeoutMs?: number } = {}) {
  const log: Log = opts.log ?? (() => undefined);
  const timeout = opts.timeoutMs ?? 10_000;
  const endpoints: Endpoint[] = urls.map((url, index) => ({
    label: `endpoint ${index + 1} (${new URL(url).host})`,
    index,
    rpc: connect(url, timeout),
    probe: connect(url, PROBE_TIMEOUT_MS),
    state: 'unchecked',
    samples: [],
  }));
  const fleet: Fleet = { endpoints, log, expected: undefined, preferred: undefined };
  let timer: NodeJS.Timeout | undefined;
  const request = requestOverFleet(fleet);

  return {
    transport: (() =>
      createTransport({ key: 'failover', name: 'Failover', type: 'failover', request, retryCount: 0 })) as Transport,

    /**
     * Asks every endpoint its chain id: refuses one that differs from CHAIN_ID (or, unset, from the others), and a
     * list where none answers; one that does not answer yet is used once it does (and answers the same id). Then
     * ranks them every 2 s.
     */
    async open(chainId: number | undefined): Promise<number> {
      const expected = await checkChainIds(fleet, urls, chainId);
      await sampleAll(fleet);
      // an endpoint that hangs holds a round for its timeout: rounds never pile up behind it
      let sampling = false;
      timer = setInterval(() => {
        if (sampling) return;
        sampling = true;
        sampleAll(fleet)
          .finally(() => (sampling = false))
          .catch((error: unknown) => log('warn', { error: firstLine(error) }, 'chain RPC endpoints not ranked'));
      }, RANK_INTERVAL_MS);
      timer.unref();
      return expected;
    },

    /** The endpoints as last ranked (for /healthz and the logs): label, state, share of healthy samples. */
    status: () => endpoints.map((e) => ({ endpoint: e.label, state: e.state, healthy: stability(e) })),

    stop(): void {
      clearInterval(timer);
    },
  };
}

export type FailoverTransport = ReturnType<typeof failoverTransport>;

function connect(url: string, ms: number) {
  return (
    /^wss?:/.test(url) ? webSocket(url, { timeout: ms, retryCount: 0 }) : http(url, { timeout: ms, retryCount: 0 })
  )({
    retryCount: 0,
    timeout: ms,
  });
}

function record({ log }: Fleet, e: Endpoint, sample: Sample): void {
  const wasOk = e.samples.at(-1)?.ok ?? true;
  e.samples.push(sample);
  if (e.samples.length > SAMPLES) e.samples.shift();
  if (wasOk && !sample.ok) log('warn', { endpoint: e.label }, 'chain RPC endpoint failing');
  if (!wasOk && sample.ok) log('info', { endpoint: e.label }, 'chain RPC endpoint answering again');
}

function ranked(fleet: Fleet): Endpoint[] {
  const usable = fleet.endpoints.filter((e) => e.state === 'ok');
  const fastest = Math.min(...usable.map(latency));
  const slow = (e: Endpoint) => (latency(e) > 2 * fastest + 50 ? 1 : 0);
  const order = usable.sort((a, b) => stability(b) - stability(a) || slow(a) - slow(b) || a.index - b.index);
  if (order[0] && order[0] !== fleet.preferred) {
    if (fleet.preferred) fleet.log('info', { endpoint: order[0].label }, 'chain RPC endpoint now preferred');
    fleet.preferred = order[0];
  }
  return order;
}

async function chainIdOf(e: Endpoint): Promise<number | undefined> {
  const id = await e.rpc.request({ method: 'eth_chainId' }).catch(() => undefined);
  return id === undefined ? undefined : Number(id);
}

/** An endpoint answering for the first time: used from now on if it is on the expected chain. */
async function check({ log, expected }: Fleet, e: Endpoint): Promise<void> {
  const id = await chainIdOf(e);
  if (id === undefined || expected === undefined) return;
  if (id === expected) {
    e.state = 'ok';
    log('info', { endpoint: e.label }, 'chain RPC endpoint checked: in use');
  } else {
    e.state = 'wrong-chain';
    log('error', { endpoint: e.label, chainId: id, expected }, 'chain RPC endpoint is on another chain: never used');
  }
}

async function sampleAll(fleet: Fleet): Promise<void> {
  const heads = await Promise.all(
    fleet.endpoints.map(async (e) => {
      if (e.state === 'unchecked') await check(fleet, e);
      if (e.state !== 'ok') return undefined;
      const start = performance.now();
      try {
        const head = BigInt((await e.probe.request({ method: 'eth_blockNumber' })) as string);
        return { e, head, ms: performance.now() - start };
      } catch {
        record(fleet, e, { ok: false });
        return undefined;
      }
    }),
  );
  const answered = heads.filter((h) => h !== undefined);
  const best = answered.reduce((max, h) => (h.head > max ? h.head : max), 0n);
  for (const { e, head, ms } of answered) record(fleet, e, { ok: head + LAG_BLOCKS >= best, ms });
}

/** Requests go to the best endpoint, and to the next when that one fails. */
function requestOverFleet(fleet: Fleet): EIP1193RequestFn {
  return async ({ method, params }, options) => {
    let last: unknown = new Error('no CHAIN_RPC_URL endpoint answers');
    for (const e of ranked(fleet)) {
      try {
        return (await e.rpc.request({ method, params } as never, options)) as never;
      } catch (error) {
        if (!endpointFailed(error)) throw error;
        record(fleet, e, { ok: false });
        last = error;
      }
    }
    throw last;
  };
}

/** The open's first part: every endpoint's chain id, checked against CHAIN_ID (or each other); the one expected. */
async function checkChainIds(fleet: Fleet, urls: string[], chainId: number | undefined): Promise<number> {
  const { endpoints, log } = fleet;
  let failure: unknown;
  const ids = await Promise.all(
    endpoints.map((e) =>
      e.rpc.request({ method: 'eth_chainId' }).then(Number, (error: unknown) => void (failure ??= error)),
    ),
  );
  const answered = ids.flatMap((id, i) => (id === undefined ? [] : [{ id, e: endpoints[i]! }]));
  if (answered.length === 0) throw unreachableChain(urls, failure);
  const expected = chainId ?? answered[0]!.id;
  fleet.expected = expected;
  for (const { id, e } of answered) {
    if (id === expected) continue;
    const against =
      chainId === undefined ? `${answered[0]!.e.label} is on chain ${expected}` : `CHAIN_ID is ${chainId}`;
    throw new ConfigError(`invalid configuration: CHAIN_RPC_URL ${e.label} is on chain ${id}, but ${against}`);
  }
  for (const { e } of answered) e.state = 'ok';
  for (const e of endpoints)
    if (e.state === 'unchecked')
      log('warn', { endpoint: e.label }, 'chain RPC endpoint does not answer: unused until it does');
  return expected;
}
