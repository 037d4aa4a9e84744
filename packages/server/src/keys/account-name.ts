import { canonicalAccountName } from '../rules.ts';

export {
  ACCOUNT_NAME_MAX,
  accountNameProblem,
  accountNameSchema,
  canonicalAccountName,
  RESERVED_ACCOUNT_NAMES,
  reservedAccountName,
} from '../rules.ts';

/** What uniqueness compares: the canonical name in lower case (`ACME`, `Acme` and `acme` are one account). */
export function accountNameKey(name: string): string {
  return canonicalAccountName(name).toLowerCase();
}
