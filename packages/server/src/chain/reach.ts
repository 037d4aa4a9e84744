import { ConfigError } from '../config.ts';
import { fail, ok, PROBE_TIMEOUT_MS, urlHost, type Finding } from '../system/doctor.ts';

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved right now',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ECONNRESET: 'the connection was reset',
};

/** Why an RPC request got no answer, read from its causes (viem wraps fetch's, which wraps the socket's). */
function rpcFailure(error: unknown): string {
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && depth < 8; depth++) {
    if (typeof e.code === 'string' && REASONS[e.code]) return REASONS[e.code]!;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'no answer in time';
    if (typeof e.status === 'number') return `HTTP ${e.status}`;
    e = e.cause as Record<string, unknown> | undefined;
  }
  return 'no answer to eth_chainId';
}

/** The one line a start says when no CHAIN_RPC_URL endpoint answers: the hosts, never a path or a key. */
export function unreachableChain(urls: string[], error: unknown): ConfigError {
  const hosts = urls.map(urlHost).join(', ');
  return new ConfigError(`CHAIN_RPC_URL: cannot reach ${hosts}: ${rpcFailure(error)}; check CHAIN_RPC_URL`);
}

/** `doctor`'s probe of one RPC endpoint: it answers eth_chainId, with CHAIN_ID when that is set. */
export async function checkChainRpc(url: string, chainId: number | undefined, setting: string): Promise<Finding> {
  const host = urlHost(url);
  if (/^wss?:/.test(url)) return ok('chain', `${host}: a WebSocket endpoint (not probed; \`serve\` checks it)`);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (!response.ok) return fail('chain', `${host} answers HTTP ${response.status}`, setting);
    const answered = Number(((await response.json()) as { result?: string }).result);
    if (!Number.isSafeInteger(answered) || answered <= 0)
      return fail('chain', `${host} does not answer eth_chainId`, setting);
    if (chainId !== undefined && answered !== chainId)
      return fail('chain', `${host} is on chain ${answered}, not ${chainId}`, `CHAIN_ID or ${setting}`);
    return ok('chain', `${host} answers, chain ${answered}`);
  } catch (error) {
    return fail('chain', `cannot reach ${host}: ${rpcFailure(error)}`, setting);
  }
}
