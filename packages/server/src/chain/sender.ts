import { keccak256, type Hex } from 'viem';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/database.ts';
import type { Logger } from '../log.ts';
import { broadcast, firstLine, mayHaveArrived, priceRefused } from './broadcast.ts';
import type { Chain } from './connect.ts';
import { bumpedFees, currentFees, type Fees } from './fees.ts';
import { recordSigned } from './journal-store.ts';

/** How long fees read from the node are used for new transactions (a block or so: the max fee has room for six). */
const FEES_TTL_MS = 1_000;

/** The transaction could not be sent at all (nothing reached the chain): its items can fail safely. */
export class NotSentError extends Error {}

interface SenderOptions {
  /** Fees never go above this, whatever the network asks (wei). */
  maxFeeCapWei: bigint;
}

/** A transaction as the relayer signed it: what a fee bump re-signs, and the bytes a forgetful node gets again. */
type Unsigned = Omit<SignedTx, 'hash' | 'raw'>;

export interface SignedTx {
  to: Hex;
  data: Hex;
  nonce: number;
  gas: bigint;
  fees: Fees;
  hash: Hex;
  raw: Hex;
}

/**
 * Signs and sends the relayer's transactions: gas and EIP-1559 fees from the node (capped), signed locally and
 * journaled (raw bytes and hash) before each broadcast, re-signed at the same nonce with bumped fees when stuck.
 * Which nonce, when to bump and when to resend is the pipeline's call (chain/pipeline.ts).
 */
export function createSender(chain: Chain, db: Db, clock: Clock, opts: SenderOptions, log?: Logger) {
  const { publicClient, account } = chain;
  let lastFees: (Fees & { blockGasLimit: bigint }) | undefined;

  const sign = (journalId: string, tx: Unsigned) => signAndRecord({ chain, db, clock }, journalId, tx);

  let feesAt = 0;

  /** The node's fees, read again when older than FEES_TTL_MS (or when `fresh`, for a bump). */
  async function fees(fresh = false): Promise<Fees & { blockGasLimit: bigint }> {
    if (!fresh && lastFees && Date.now() - feesAt < FEES_TTL_MS) return lastFees;
    lastFees = await currentFees(publicClient, opts.maxFeeCapWei);
    feesAt = Date.now();
    return lastFees;
  }

  return {
    address: account.address,

    /** The latest block's gas limit (read once, then as fees are read). */
    async blockGasLimit(): Promise<bigint> {
      return (lastFees ?? (await fees())).blockGasLimit;
    },

    /** The fees last asked of the node, for the relayer's stats. */
    lastFees: () => lastFees,

    /**
     * Gas (estimate + 20%, but within `gasCeiling` when the estimate leaves 2% under it) and fees for a call; throws
     * NotSentError when the node cannot say (the call would revert, or the node is away).
     */
    async prepare(to: Hex, data: Hex, gasCeiling: bigint): Promise<{ gas: bigint; fees: Fees }> {
      try {
        const [estimate, now] = await Promise.all([publicClient.estimateGas({ account, to, data }), fees()]);
        const roomy = (estimate * 120n) / 100n;
        const tight = (estimate * 102n) / 100n;
        const gas = roomy <= gasCeiling ? roomy : tight > gasCeiling ? tight : gasCeiling;
        return { gas, fees: now };
      } catch (error) {
        throw new NotSentError(`could not prepare the transaction: ${firstLine(error)}`);
      }
    },

    /** The nonce of the next transaction: `local` (the one after those in flight), or the node's count if higher. */
    async nonceFrom(local: number): Promise<number> {
      try {
        const pending = await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
        return pending > local ? pending : local;
      } catch (error) {
        throw new NotSentError(`could not read the nonce: ${firstLine(error)}`);
      }
    },

    /**
     * Signs at `nonce`, journals, broadcasts. Throws NotSentError only when the node surely does not hold it (then
     * the nonce is free again); any other doubt leaves it to the watch, which knows by the chain.
     */
    launch: (journalId: string, tx: Unsigned): Promise<SignedTx> =>
      launch({ chain, sign, fees, maxFeeCapWei: opts.maxFeeCapWei }, journalId, tx),

    /** Re-signs `tx` at its nonce with higher fees, journals and broadcasts it; undefined when at the fee cap. */
    async bump(journalId: string, tx: SignedTx): Promise<SignedTx | undefined> {
      const now = await fees(true).catch(() => undefined);
      const next = bumpedFees(tx.fees, now, opts.maxFeeCapWei);
      if (!next) return undefined;
      const signed = await sign(journalId, { ...tx, fees: next });
      await broadcast(publicClient, signed.raw).catch((error: unknown) =>
        log?.warn({ journalId, nonce: tx.nonce, error: firstLine(error) }, 'fee bump refused'),
      );
      return signed;
    },

    /** Sends the same bytes again (a node that forgot a transaction); false when refused (logged, never thrown). */
    async resend(journalId: string, raw: Hex): Promise<boolean> {
      return broadcast(publicClient, raw).then(
        () => true,
        (error: unknown) => {
          log?.warn({ journalId, error: firstLine(error) }, 'resend refused');
          return false;
        },
      );
    },

    /** Whether the node knows this transaction (in its mempool or mined). */
    async known(hash: Hex): Promise<boolean> {
      return publicClient
        .getTransaction({ hash })
        .then(() => true)
        .catch(() => false);
    },
  };
}

export type Sender = ReturnType<typeof createSender>;

/** Signs with the chain id checked at start and journals the signed bytes and hash before anything is sent. */
async function signAndRecord(
  deps: { chain: Chain; db: Db; clock: Clock },
  journalId: string,
  tx: Unsigned,
): Promise<SignedTx> {
  const { chain, db, clock } = deps;
  const { account } = chain;
  // the account signs with the chain id the service checked at start: viem's walletClient.signTransaction would ask
  // the node for it at every transaction (a round trip, and a failure that is not NotSentError when the node is away)
  const raw = await account.signTransaction({
    chainId: chain.chainId,
    to: tx.to,
    data: tx.data,
    nonce: tx.nonce,
    gas: tx.gas,
    maxFeePerGas: tx.fees.maxFeePerGas,
    maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas,
    type: 'eip1559',
  });
  const hash = keccak256(raw);
  await inTransaction(db, (journal) =>
    recordSigned(
      journal,
      journalId,
      { nonce: tx.nonce, hash, raw, maxFeePerGas: tx.fees.maxFeePerGas, signer: account.address },
      new Date(clock.now()),
    ),
  );
  return { ...tx, hash, raw };
}

/** The sender's launch: signed, journaled, broadcast; once more at the node's fees now when the price was refused. */
async function launch(
  deps: {
    chain: Chain;
    sign: (journalId: string, tx: Unsigned) => Promise<SignedTx>;
    fees: (fresh: boolean) => Promise<Fees>;
    maxFeeCapWei: bigint;
  },
  journalId: string,
  tx: Unsigned,
): Promise<SignedTx> {
  const { publicClient, account } = deps.chain;
  let signed = await deps.sign(journalId, tx);
  for (let attempt = 0; ; attempt++) {
    try {
      await broadcast(publicClient, signed.raw);
      return signed;
    } catch (error) {
      if (attempt === 0 && priceRefused(error)) {
        // the fees were read a moment ago and the base fee moved past them: once more at the node's fees now
        const now = await deps.fees(true).catch(() => undefined);
        signed = await deps.sign(journalId, {
          ...tx,
          fees: bumpedFees(tx.fees, now, deps.maxFeeCapWei) ?? tx.fees,
        });
        continue;
      }
      if (!mayHaveArrived(error)) throw new NotSentError(`the node refused the transaction: ${firstLine(error)}`);
      const held = await publicClient
        .getTransactionCount({ address: account.address, blockTag: 'pending' })
        .catch(() => undefined);
      if (held === undefined || held <= tx.nonce) throw new NotSentError('the chain did not take the transaction');
      return signed;
    }
  }
}
