import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS, type ExportInput } from './contracts.ts';
import { AuditExport, keysetPages } from './export.ts';
import type { Logger } from '../log.ts';
import { recordAuthFailure, recordQuotaRefusal, type CallerInfo } from './denials.ts';
import { formatFromAccept } from './negotiate.ts';
import type { EntryListInput, EntryListPage } from './dashboard-contracts.ts';
import { listEntries } from './dashboard-list.ts';

const DAY_MS = 86_400_000;

function invalid(path: string, message: string): AppError {
  return new AppError('VALIDATION_FAILED', `Invalid request: ${path}: ${message}`, { errors: [{ path, message }] });
}

/**
 * The half-open range [from, to) of an export: `to` defaults to now, `from` to 30 days before `to`; with `whole`
 * (the dashboard's download, streamed page by page like any export) `from` defaults to the log's start, any span.
 */
function exportRange(input: Pick<ExportInput, 'from' | 'to'>, now: number, whole = false): { from: Date; to: Date } {
  const to = input.to === undefined ? new Date(now) : new Date(input.to);
  const start = whole ? new Date(0) : new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
  const from = input.from === undefined ? start : new Date(input.from);
  if (from.getTime() >= to.getTime()) throw invalid('from', 'must be before to');
  if (!whole && to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS)
    throw invalid('to', `the range may span at most ${MAX_RANGE_DAYS} days; export longer periods in parts`);
  return { from, to };
}

/** `20261122T120000Z` (milliseconds only when there are some): an instant that is safe in a file name. */
function compactInstant(at: Date): string {
  return at.toISOString().replace(/[-:]/g, '').replace('.000Z', 'Z');
}

/**
 * `audit-<account>-<from>-<to>.<ext>` (`start` for a log from its beginning), the account name reduced to characters
 * safe in a header and a file name.
 */
function exportFilename(accountName: string, from: Date, to: Date, ext: string): string {
  const account = accountName.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || 'account';
  const start = from.getTime() === 0 ? 'start' : compactInstant(from);
  return `audit-${account}-${start}-${compactInstant(to)}.${ext}`;
}

/**
 * Checks an export request (format or Accept, range) and returns the export, which reads nothing until streamed.
 * Only the caller's own account is ever read.
 */
export function openExport(
  deps: { db: Db; clock: Clock },
  auth: { accountId: string; accountName: string },
  input: ExportInput,
  accept: string | undefined,
  whole = false,
): AuditExport {
  const format = input.format ?? formatFromAccept(accept);
  if (format === undefined) {
    throw new AppError(
      'NOT_ACCEPTABLE',
      'The audit export is available as application/json or text/csv; ask for one in Accept, or pass ?format=json|csv.',
      { available: ['application/json', 'text/csv'] },
    );
  }
  const { from, to } = exportRange(input, deps.clock.now(), whole);
  return new AuditExport({
    format,
    filename: exportFilename(auth.accountName, from, to, format),
    pages: keysetPages(deps.db, { accountId: auth.accountId, from, to, action: input.action }),
  });
}

/** The audit log as procedures reach it: the export, the dashboard's pages, and the entries of refused calls. */
export interface AuditService {
  /** `whole`: `from` defaults to the log's start and the span is not capped (the dashboard's download). */
  openExport(
    auth: Parameters<typeof openExport>[1],
    input: ExportInput,
    accept: string | undefined,
    whole?: boolean,
  ): AuditExport;
  listForAccount(accountId: string, input: EntryListInput): Promise<EntryListPage>;
  recordAuthFailure(failure: Parameters<typeof recordAuthFailure>[1], caller: CallerInfo): void;
  recordQuotaRefusal(auth: Parameters<typeof recordQuotaRefusal>[1], error: unknown, caller: CallerInfo): Promise<void>;
}

/** The audit service bound to the storage it reads and writes (procedures get no client of their own). */
export function createAuditService(deps: { db: Db; clock: Clock; log: Logger }): AuditService {
  return {
    openExport: (auth, input, accept, whole) => openExport(deps, auth, input, accept, whole),
    listForAccount: (accountId, input) => listEntries(deps.db, accountId, input),
    recordAuthFailure: (failure, caller) => recordAuthFailure(deps, failure, caller),
    recordQuotaRefusal: (auth, error, caller) => recordQuotaRefusal(deps, auth, error, caller),
  };
}
