import { z } from 'zod';

export const ACCOUNT_NAME_MAX = 64;

/** After NFKC: ASCII letters and digits, and single spaces or `.` `_` `-` between them (docs/decisions.md). */
const ALLOWED = /^[A-Za-z0-9]+(?:[ ._-]+[A-Za-z0-9]+)*[.]?$/;
/** Default-ignorable and format characters (zero-width joiners, bidi controls, soft hyphens) and other controls. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]/u;

/** A name as an account is stored with it: trimmed and NFKC-normalised (full-width `ＡＣＭＥ` is `ACME`). */
export function canonicalAccountName(input: string): string {
  return input.trim().normalize('NFKC');
}

/** What uniqueness compares: the canonical name in lower case (`ACME`, `Acme` and `acme` are one account). */
export function accountNameKey(name: string): string {
  return canonicalAccountName(name).toLowerCase();
}

/** Why a name cannot open an account, or undefined when it can (checked on the canonical name). */
export function accountNameProblem(input: string): string | undefined {
  const name = canonicalAccountName(input);
  if (name.length === 0) return 'An account name cannot be empty.';
  if (name.length > ACCOUNT_NAME_MAX) return `An account name has at most ${ACCOUNT_NAME_MAX} characters.`;
  if (INVISIBLE.test(name)) return 'An account name cannot hold invisible or control characters.';
  if (/[^\x20-\x7e]/.test(name))
    return 'An account name uses ASCII letters and digits only (letters of other scripts can pass for Latin ones).';
  if (/ {2}/.test(name)) return 'An account name cannot hold two spaces in a row.';
  if (!ALLOWED.test(name))
    return 'An account name is letters and digits with single spaces or . _ - between them (and may end with .).';
  return undefined;
}

/** An account name as the dashboard takes it: refused with the rule it breaks, else canonical. */
export const accountNameSchema = z
  .string()
  .max(ACCOUNT_NAME_MAX * 4)
  .superRefine((value, ctx) => {
    const problem = accountNameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform(canonicalAccountName);
