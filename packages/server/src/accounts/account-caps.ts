import { AppError } from '../errors.ts';

/**
 * DASHBOARD_ACCOUNTS_PER_USER and DASHBOARD_ACCOUNTS_PER_NETWORK_PER_DAY: the first is counted here, in the opening's
 * transaction; the second in the rate-limit windows (limits/account-openings.ts).
 */
export interface AccountCaps {
  perUser: number;
  perNetworkPerDay: number;
}

export const ACCOUNT_CAPS: AccountCaps = { perUser: 3, perNetworkPerDay: 10 };

export function tooManyAccounts(limit: number): AppError {
  return new AppError(
    'FORBIDDEN',
    `You own ${limit} accounts opened here already, the most one person may open: use one of them, or ask the ` +
      'operator for another.',
    { reason: 'ACCOUNTS_PER_USER', limit },
  );
}
