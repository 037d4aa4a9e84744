import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import type { Logger } from '../log.ts';
import { firstLine } from './broadcast.ts';
import type { Flight } from './pipeline.ts';
import type { Sender } from './sender.ts';
import type { Watch } from './watch.ts';

/** A journaled transaction another relayer address signed (before a key rotation). */
export type ForeignFlight = Flight & { signer: Hex };

/** How often foreign transactions are looked at, and how often a pending one's bytes are sent again. */
const POLL_MS = 500;
const RESEND_MS = 30_000;
/** How long a used nonce may go without a receipt for any of its hashes before it counts as taken by another. */
const LOST_GRACE_MS = 2_000;

/**
 * Sees the transactions an earlier relayer key signed to their end, without ever re-signing them (this process has
 * not that key): mined, their work finishes as usual; their nonce used by another transaction (the old key's owner
 * cancelled it), their items go back to the queue for this relayer. Pending ones get their own bytes again now and
 * then. Returns once none is left (or `signal` aborts: the journal keeps them for the next run).
 */
export async function settleForeign(
  deps: { sender: Sender; watchOf: (address: Hex) => Watch; log: Logger },
  flights: ForeignFlight[],
  signal?: AbortSignal,
): Promise<void> {
  const { sender, log } = deps;
  const open = [...flights];
  const watches = new Map<string, Watch>();
  const watchOf = (address: Hex) => {
    const key = address.toLowerCase();
    if (!watches.has(key)) watches.set(key, deps.watchOf(address));
    return watches.get(key)!;
  };
  let resentAt = 0;
  while (open.length > 0 && !signal?.aborted) {
    if (Date.now() - resentAt >= RESEND_MS) {
      resentAt = Date.now();
      for (const flight of open) await sender.resend(flight.journalId, flight.raw);
    }
    for (const signer of new Set(open.map((f) => f.signer.toLowerCase()))) {
      const group = open.filter((f) => f.signer.toLowerCase() === signer);
      const sightings = await watchOf(group[0]!.signer)
        .look(group)
        .catch((error: unknown) => {
          log.warn({ error: firstLine(error) }, 'could not look at an earlier key’s transactions');
          return undefined;
        });
      if (!sightings) continue;
      for (const [i, flight] of group.entries()) {
        const seen = sightings[i]!;
        const done = () => open.splice(open.indexOf(flight), 1);
        if (seen.state === 'mined') {
          await flight.work.finish(flight.journalId, seen.receipt);
          done();
        } else if (seen.state === 'lost') {
          flight.lostSince ??= Date.now();
          if (Date.now() - flight.lostSince < LOST_GRACE_MS) continue;
          log.warn(
            { journalId: flight.journalId, signer: flight.signer, nonce: flight.nonce },
            'an earlier key’s nonce was taken by another transaction: its items are requeued',
          );
          await flight.work.finish(flight.journalId, 'dropped');
          done();
        } else delete flight.lostSince;
      }
    }
    if (open.length > 0) await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
  }
}
