import type { AppError } from '../errors.ts';

/** A sliding window's state after a call: its limit, what is left, and when a slot frees (ms). */
export interface RateWindow {
  limit: number;
  remaining: number;
  resetMs: number;
}

/**
 * What every procedure sees of the request it serves; the same for REST and /trpc. The HTTP layer fills it, with
 * the services the composition root hands it (their type is the root's: this layer only passes them through).
 */
export interface RequestContext<TServices> {
  services: TServices;
  requestId: string;
  ip: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  /** The Accept header (the audit export negotiates JSON or CSV with it). */
  accept?: string | undefined;
  /** The dashboard's: its session cookie, the request's Origin and Sec-Fetch-Site (cross-site checks) and the
   * account the member acts on (`x-account-id`). */
  cookie?: string | undefined;
  origin?: string | undefined;
  fetchSite?: string | undefined;
  accountId?: string | undefined;
  /** Why the body cannot be taken (over the limit, nested too deep), found while reading it ahead of tRPC: answered
   * by the input rules, after authentication and the rate limit, as REST answers it. */
  inputRefusal?: AppError | undefined;
  /** The windows this call was counted in and what they said, once its key is charged (GET /v1/usage). */
  rate?: { key?: RateWindow; account?: RateWindow } | undefined;
  /** Headers the HTTP layer adds to the response, success or error (rate-limit fields, replay marker). */
  responseHeaders: Record<string, string>;
}
