import { keccak256, type Hex, type TransactionReceipt } from 'viem';
import type { Clock } from '../clock.ts';
import { inTransaction, type Pool } from '../db/sql.ts';
import type { Chain } from './connect.ts';
import { recordSigned, type JournalEntry } from './journal.ts';
import type { Logger } from '../log.ts';

/** The transaction could not be sent at all (nothing reached the chain): its items can fail safely. */
export class NotSentError extends Error {}

export interface SenderOptions {
  confirmations: number;
  /** Fees never go above this, whatever the network asks (wei). */
  maxFeeCapWei: bigint;
  /** A transaction not mined after this long is re-signed with bumped fees. */
  stuckAfterMs: number;
  /** How many fee bumps before giving up waiting (the journal keeps the transaction for reconciliation). */
  maxBumps: number;
}

const MAYBE_ALREADY_SENT =
  /already known|nonce too low|replacement transaction underpriced|known transaction|already imported/i;
const TRANSIENT = /429|Too Many Requests|rate limit|timed? ?out|ECONNRESET|socket hang up/i;

/**
 * Sends the relayer's transactions: nonce and EIP-1559 fees from the node (capped), signed locally and journaled
 * before broadcast, waited for with `confirmations`, re-signed at the same nonce with bumped fees when stuck.
 */
export function createSender(chain: Chain, pool: Pool, clock: Clock, opts: SenderOptions, log?: Logger) {
  const { publicClient, walletClient, account } = chain;

  async function sign(
    to: Hex,
    data: Hex,
    nonce: number,
    gas: bigint,
    maxFeePerGas: bigint,
    maxPriorityFeePerGas: bigint,
  ) {
    const raw = await walletClient.signTransaction({
      account,
      chain: walletClient.chain,
      to,
      data,
      nonce,
      gas,
      maxFeePerGas,
      maxPriorityFeePerGas,
      type: 'eip1559',
    });
    return { raw, hash: keccak256(raw) };
  }

  async function broadcast(raw: Hex): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await publicClient.sendRawTransaction({ serializedTransaction: raw });
        return;
      } catch (error) {
        const message = String((error as Error).message);
        // the node has it already (a resend after a crash), or a sibling with this nonce was mined: the wait decides
        if (MAYBE_ALREADY_SENT.test(message)) return;
        // a provider's 429 or a passing fault: the same signed bytes may be sent again without risk
        if (attempt < 3 && TRANSIENT.test(message)) {
          await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
          continue;
        }
        throw error;
      }
    }
  }

  /** The receipt of whichever of these hashes was mined, once it has its confirmations; undefined on timeout. */
  async function waitMined(hashes: Hex[], timeoutMs: number): Promise<TransactionReceipt | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const hash of hashes) {
        const receipt = await publicClient.getTransactionReceipt({ hash }).catch(() => undefined);
        if (!receipt) continue;
        if (opts.confirmations <= 1) return receipt;
        const latest = await publicClient.getBlockNumber({ cacheTime: 0 });
        if (latest - receipt.blockNumber + 1n >= BigInt(opts.confirmations)) return receipt;
      }
      if (Date.now() >= deadline) return undefined;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function signAndRecord(
    journalId: string,
    to: Hex,
    data: Hex,
    nonce: number,
    gas: bigint,
    maxFee: bigint,
    tip: bigint,
  ) {
    const signed = await sign(to, data, nonce, gas, maxFee, tip);
    await inTransaction(pool, (tx) =>
      recordSigned(
        tx,
        journalId,
        { nonce, hash: signed.hash, raw: signed.raw, maxFeePerGas: maxFee },
        new Date(clock.now()),
      ),
    );
    return signed;
  }

  /** Bumps fees at the same nonce until mined (or out of bumps: the journal keeps it for the next run). */
  async function followUp(
    journalId: string,
    to: Hex,
    data: Hex,
    nonce: number,
    gas: bigint,
    maxFee: bigint,
    tip: bigint,
    hashes: Hex[],
  ): Promise<TransactionReceipt | undefined> {
    for (let bump = 0; ; bump++) {
      const receipt = await waitMined(hashes, opts.stuckAfterMs);
      if (receipt) return receipt;
      if (bump >= opts.maxBumps) return undefined;
      // replacement needs at least +10% on both fees; +25% clears it with margin
      const nextTip = (tip * 125n) / 100n + 1n;
      const nextMax = [(maxFee * 125n) / 100n + 1n, opts.maxFeeCapWei].reduce((a, b) => (a < b ? a : b));
      if (nextMax <= maxFee) continue; // at the cap: keep waiting
      maxFee = nextMax;
      tip = nextTip > maxFee ? maxFee : nextTip;
      const signed = await signAndRecord(journalId, to, data, nonce, gas, maxFee, tip);
      hashes.push(signed.hash);
      log?.warn(
        { journalId, nonce, hash: signed.hash, maxFeePerGas: maxFee.toString(), bump: bump + 1 },
        'transaction stuck: resent with higher fees',
      );
      await broadcast(signed.raw).catch((error: unknown) =>
        log?.warn({ journalId, error: String((error as Error).message).split('\n')[0] }, 'resend refused'),
      );
    }
  }

  return {
    address: account.address,

    /** Builds, journals, broadcasts and waits for one transaction to `to`. */
    async send(journalId: string, to: Hex, data: Hex): Promise<TransactionReceipt | undefined> {
      let nonce: number;
      let gas: bigint;
      let maxFee: bigint;
      let tip: bigint;
      try {
        nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
        gas = ((await publicClient.estimateGas({ account, to, data })) * 120n) / 100n;
        const fees = await publicClient.estimateFeesPerGas();
        maxFee = fees.maxFeePerGas < opts.maxFeeCapWei ? fees.maxFeePerGas : opts.maxFeeCapWei;
        tip = fees.maxPriorityFeePerGas < maxFee ? fees.maxPriorityFeePerGas : maxFee;
      } catch (error) {
        throw new NotSentError(`could not prepare the transaction: ${(error as Error).message.split('\n')[0]}`);
      }
      const signed = await signAndRecord(journalId, to, data, nonce, gas, maxFee, tip);
      try {
        await broadcast(signed.raw);
      } catch (error) {
        // a refused connection never reached the node; anything else might have, and is reconciled by hash
        if (/ECONNREFUSED|fetch failed|HTTP request failed/i.test(String((error as Error).message))) {
          const latest = await publicClient
            .getTransactionCount({ address: account.address, blockTag: 'pending' })
            .catch(() => undefined);
          if (latest === undefined || latest <= nonce) throw new NotSentError('the chain did not take the transaction');
        }
      }
      return followUp(journalId, to, data, nonce, gas, maxFee, tip, [signed.hash]);
    },

    /** Picks up a journaled transaction after a crash: its receipt if mined, else resends it and waits. */
    async resume(entry: JournalEntry): Promise<TransactionReceipt | 'dropped' | undefined> {
      const hashes = [...entry.sentHashes];
      const mined = await waitMined(hashes, 0);
      if (mined) return mined;
      const latest = await publicClient.getTransactionCount({ address: account.address, blockTag: 'latest' });
      if (entry.nonce !== null && latest > entry.nonce) {
        // the nonce was used, but by none of our hashes for it: ours can never be mined
        const again = await waitMined(hashes, 2_000);
        return again ?? 'dropped';
      }
      if (entry.rawTx) await broadcast(entry.rawTx).catch(() => undefined);
      return waitMined(hashes, opts.stuckAfterMs * (opts.maxBumps + 1));
    },
  };
}

export type Sender = ReturnType<typeof createSender>;
