import type { Chain } from './connect.ts';
import type { ComponentReport } from '../system/health.ts';

interface ChainStatus {
  ok: boolean;
  /** Whether the RPC answered the last probe (false: the balance is unknown). */
  rpcUp: boolean;
  reason?: string;
  checkedAt: number;
  /** The relayer's balance at the last probe that read it (the metrics report it). */
  balanceWei?: bigint;
  /** CHAIN_RPC_URL's endpoints that are failing or not checked yet, when there are several (chain/transport.ts). */
  failingEndpoints?: string[];
}

/**
 * Whether on-chain writes can go out now: the RPC answers and the relayer holds at least `minBalanceWei`. Probed in
 * the background every `intervalMs` (and at once when the last answer is stale), so a create can refuse quickly,
 * before reserving quota, when the chain is down.
 */
export function createChainHealth(
  chain: Chain,
  opts: { minBalanceWei: bigint; intervalMs?: number; timeoutMs?: number },
) {
  const intervalMs = opts.intervalMs ?? 2_000;
  const timeoutMs = opts.timeoutMs ?? 1_500;
  let status: ChainStatus = { ok: false, rpcUp: false, reason: 'not checked yet', checkedAt: 0 };
  let inFlight: Promise<ChainStatus> | undefined;

  async function probe(): Promise<ChainStatus> {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the RPC did not answer in time')), timeoutMs).unref(),
    );
    try {
      const balance = await Promise.race([chain.publicClient.getBalance({ address: chain.account.address }), timeout]);
      const endpoints = chain.endpoints();
      const failing = endpoints.filter((e) => e.state !== 'ok' || e.healthy < 1).map((e) => e.endpoint);
      const failingEndpoints = endpoints.length > 1 && failing.length > 0 ? { failingEndpoints: failing } : {};
      status =
        balance >= opts.minBalanceWei
          ? { ok: true, rpcUp: true, checkedAt: Date.now(), balanceWei: balance, ...failingEndpoints }
          : {
              ok: false,
              rpcUp: true,
              reason: 'the relayer is out of funds',
              checkedAt: Date.now(),
              balanceWei: balance,
              ...failingEndpoints,
            };
    } catch {
      status = { ok: false, rpcUp: false, reason: 'the chain RPC is unreachable', checkedAt: Date.now() };
    }
    return status;
  }

  function check(): Promise<ChainStatus> {
    inFlight ??= probe().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  const timer = setInterval(() => {
    check().catch(() => undefined); // never fails: probe() records an unreachable RPC in `status`
  }, intervalMs);
  timer.unref();

  return {
    /** The latest status, probing first when it is older than two intervals. */
    async current(): Promise<ChainStatus> {
      return Date.now() - status.checkedAt > 2 * intervalMs ? check() : status;
    },
    /** The last probe's status as it stands, without waiting (what /healthz reports). */
    latest: (): ChainStatus => status,
    check,
    stop: () => clearInterval(timer),
  };
}

export type ChainHealth = ReturnType<typeof createChainHealth>;

/**
 * The chain as /healthz reports it: `chain` (the RPC answers) and `relayer` (its balance is at least the minimum;
 * `unknown` while the RPC does not answer), and with several RPC endpoints `rpc` (degraded while one of them fails:
 * the others carry the traffic, without a spare). Degraded, never not-ready: reads and off-chain writes do not need them.
 */
export function chainComponents(status: ChainStatus): ComponentReport {
  const report = chainAndRelayer(status);
  if (status.failingEndpoints) {
    report.components.rpc = 'degraded';
    report.reasons.rpc = `${status.failingEndpoints.join(', ')} failing or not checked: the other endpoints answer`;
  }
  return report;
}

function chainAndRelayer(status: ChainStatus): ComponentReport {
  if (!status.rpcUp)
    return {
      components: { chain: 'degraded', relayer: 'unknown' },
      reasons: { chain: status.reason ?? 'the chain RPC is unreachable', relayer: 'no balance without the chain RPC' },
    };
  if (!status.ok)
    return { components: { chain: 'ok', relayer: 'degraded' }, reasons: { relayer: status.reason ?? 'out of funds' } };
  return { components: { chain: 'ok', relayer: 'ok' }, reasons: {} };
}
