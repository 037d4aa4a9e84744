import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex, PublicClient } from 'viem';

/** The node has the transaction already, or its nonce went to a sibling: whether ours is mined, the watch decides. */
const MAYBE_ALREADY_SENT =
  /already known|nonce too low|replacement transaction underpriced|known transaction|already imported/i;
/** A provider's 429 or a passing fault: the same signed bytes may be sent again without risk. */
const TRANSIENT = /\b429\b|Too Many Requests|rate limit|timed? ?out|ECONNRESET|socket hang up/i;
/** Transport failures: the request may or may not have reached the node (an answer from the node is not one). */
const UNCERTAIN_DELIVERY =
  /ECONNREFUSED|ECONNRESET|fetch failed|HttpRequestError|HTTP request failed|TimeoutError|took too long|timed? ?out|socket hang up|\b429\b|Too Many/i;

/** One line for a log or a failure reason: the node's own words when viem kept them, else the message's first line. */
function firstLine(error: unknown): string {
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && depth < 8; depth++) {
    if (typeof e.details === 'string' && e.details) return e.details.split('\n')[0]!;
    e = e.cause as Record<string, unknown> | undefined;
  }
  return String((error as Error)?.message ?? error).split('\n')[0]!;
}

/**
 * What an error says, without the request it quotes: viem's errors carry the node's words in `details` and the HTTP
 * status in `status` down their cause chain, while their message repeats the request body (raw transaction hex).
 */
function said(error: unknown): string {
  const parts: string[] = [];
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && depth < 8; depth++) {
    for (const key of ['name', 'shortMessage', 'details', 'code', 'status'] as const)
      if (e[key] !== undefined) parts.push(String(e[key]));
    if (!('shortMessage' in e) && typeof e.message === 'string') parts.push(e.message);
    e = e.cause as Record<string, unknown> | undefined;
  }
  return parts.join(' | ');
}

/**
 * Sends signed bytes to the node. An answer that says the node may hold this nonce already counts as sent; a
 * transient fault is retried with the same bytes (3 times, backing off); anything else throws.
 */
export async function broadcast(client: PublicClient, raw: Hex): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
      return;
    } catch (error) {
      const message = said(error);
      if (MAYBE_ALREADY_SENT.test(message)) return;
      if (attempt < 3 && TRANSIENT.test(message)) {
        await sleep(250 * 2 ** attempt);
        continue;
      }
      throw error;
    }
  }
}

/** The node's answer to fees below what it takes now (the base fee rose, or its minimum). */
const PRICED_OUT =
  /less than (the )?block base fee|fee cap less than|transaction underpriced|fee too low|max fee per gas too low/i;

/** Whether the node refused a transaction for its fees (a replacement of ours at the same nonce is not that). */
export function priceRefused(error: unknown): boolean {
  const text = said(error);
  return PRICED_OUT.test(text) && !/replacement transaction underpriced/i.test(text);
}

/** Whether a broadcast that threw this may have reached the node (then only the chain can tell). */
export function mayHaveArrived(error: unknown): boolean {
  return UNCERTAIN_DELIVERY.test(said(error));
}

export { firstLine };
