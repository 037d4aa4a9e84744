/** How the SDK retries: which answers, how often, how long it waits at most. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 disables). */
  maxRetries?: number;
  /** The longest wait between attempts, whatever Retry-After says (default 30 000 ms). */
  maxDelayMs?: number;
}

/** 429 and 503 from the service; 502 and 504 from a proxy in front of it whose replica died or did not answer. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const RETRYABLE_CODES = new Set(['RATE_LIMITED', 'CHAIN_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'NOT_READY']);

/** What an error body says its code is (tRPC's `error.data.code` or REST's `code`), when it says. */
async function codeOf(res: Response): Promise<string | undefined> {
  try {
    const body = (await res.clone().json()) as { error?: { data?: { code?: string } }; code?: string };
    return body.error?.data?.code ?? body.code;
  } catch {
    return undefined;
  }
}

function delayFor(res: Response | undefined, attempt: number, maxDelayMs: number): number {
  const retryAfter = res?.headers.get('retry-after');
  const seconds = retryAfter === null || retryAfter === undefined ? Number.NaN : Number(retryAfter);
  const dated = retryAfter ? Date.parse(retryAfter) - Date.now() : Number.NaN;
  const wanted = Number.isFinite(seconds) ? seconds * 1000 : Number.isFinite(dated) ? dated : 250 * 2 ** attempt;
  return Math.min(Math.max(0, wanted), maxDelayMs);
}

/**
 * A fetch that retries a request which is safe to repeat — a GET, or a POST that carries an Idempotency-Key —
 * when the service answers 429 RATE_LIMITED or 503 (honouring Retry-After), a proxy in front of it 502 or 504, or
 * when the connection fails.
 * A monthly quota (429 QUOTA_EXCEEDED) is never retried: waiting seconds would not help.
 */
export function retryingFetch(inner: typeof fetch, opts: RetryOptions = {}): typeof fetch {
  const maxRetries = opts.maxRetries ?? 2;
  const maxDelayMs = opts.maxDelayMs ?? 30_000;
  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    const repeatable = method === 'GET' || headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      let res: Response | undefined;
      try {
        res = await inner(input, init);
      } catch (error) {
        if (!repeatable || attempt >= maxRetries || init?.signal?.aborted) throw error;
      }
      if (res) {
        const retryable = RETRYABLE_STATUSES.has(res.status);
        if (!retryable || !repeatable || attempt >= maxRetries) return res;
        const code = await codeOf(res);
        if (code !== undefined && !RETRYABLE_CODES.has(code)) return res;
      }
      await new Promise((resolve) => setTimeout(resolve, delayFor(res, attempt, maxDelayMs)));
    }
  };
}
