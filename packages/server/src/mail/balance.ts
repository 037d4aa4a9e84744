import { formatEther } from 'viem';
import type { Clock } from '../clock.ts';
import { describeError } from '../errors.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { queueMails } from './outbox.ts';
import type { BodySealer } from './seal.ts';
import { recordNotice } from './store.ts';
import { templates } from './templates.ts';

/** What the watch reads: the chain health's last probe. */
export interface BalanceReading {
  rpcUp: boolean;
  balanceWei?: bigint;
}

/**
 * Mails the operator (OPERATOR_EMAIL) when the relayer's balance is below the minimum: once a UTC day while it stays
 * low, whichever worker sees it first. Returns the stop.
 */
export function watchRelayerBalance(
  deps: { db: Db; clock: Clock; log: Logger; sealer: BodySealer; read: () => BalanceReading; everyMs?: number },
  opts: { operatorEmail: string; address: string; minimumWei: bigint },
): () => Promise<void> {
  const check = async () => {
    const { rpcUp, balanceWei } = deps.read();
    if (!rpcUp || balanceWei === undefined || balanceWei >= opts.minimumWei) return;
    const now = new Date(deps.clock.now());
    await inTransaction(deps.db, async (tx) => {
      if (!(await recordNotice(tx, 'operator', 'relayer-balance', now.toISOString().slice(0, 10), now))) return;
      const composed = templates.relayerBalanceLow({
        address: opts.address,
        balanceEth: formatEther(balanceWei),
        minimumEth: formatEther(opts.minimumWei),
      });
      const mail = { kind: 'relayer-balance' as const, to: opts.operatorEmail, accountId: null, composed };
      await queueMails(tx, [mail], now, deps.sealer);
    });
  };
  const run = (): void => {
    check().catch((error: unknown) =>
      deps.log.warn({ component: 'mail', error: describeError(error) }, 'relayer balance notice failed'),
    );
  };
  run();
  const timer = setInterval(run, deps.everyMs ?? 60_000);
  return async () => clearInterval(timer);
}
