import { Counter } from 'prom-client';
import { PREFIX, type Registry } from '../system/metrics.ts';
import type { RefusalObserver } from './refusals.ts';

/** `rate_limit_refusals_total{policy}` and `quota_refusals_total{tier}`. */
export function refusalMetrics(registry: Registry): RefusalObserver {
  const rateLimited = new Counter({
    name: `${PREFIX}rate_limit_refusals_total`,
    help: 'Requests refused 429 RATE_LIMITED, by the full bucket: key (an API key or a dashboard member), account or ip.',
    labelNames: ['policy'] as const,
    registers: [registry],
  });
  const quota = new Counter({
    name: `${PREFIX}quota_refusals_total`,
    help: "On-chain creates refused 429 QUOTA_EXCEEDED (the month's quota of the key's tier or the account's plan), by tier.",
    labelNames: ['tier'] as const,
    registers: [registry],
  });
  // every series from the start: an increase() over a series born at its first refusal misses that refusal
  for (const policy of ['key', 'account', 'ip']) rateLimited.inc({ policy }, 0);
  for (const tier of ['free', 'pro', 'enterprise']) quota.inc({ tier }, 0);
  return {
    rateLimited: (policy) => rateLimited.inc({ policy }),
    quotaRefused: (tier) => quota.inc({ tier }),
  };
}
