import { canonicalAccountName } from '../rules.ts';

export { accountNameProblem, accountNameSchema, canonicalAccountName, reservedAccountName } from '../rules.ts';

/** What uniqueness compares: the canonical name in lower case (`ACME`, `Acme` and `acme` are one account). */
export function accountNameKey(name: string): string {
  return canonicalAccountName(name).toLowerCase();
}
