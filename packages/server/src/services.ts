import type { AttestationService } from './attestations/service.ts';
import type { BatchService } from './attestations/batch.ts';
import type { DelegationService } from './attestations/delegated-service.ts';
import type { AttesterService } from './attesters/service.ts';
import type { RevokeService } from './attestations/revocation/service.ts';
import type { PromotionService } from './attestations/promote.ts';
import type { AuditService } from './audit/service.ts';
import type { IdempotencyService } from './idempotency/service.ts';
import type { RateLimiter } from './limits/rate-limit.ts';
import type { KeyService } from './keys/service.ts';
import type { HealthService } from './system/health.ts';
import type { WebhookService } from './webhooks/service.ts';
import type { AccountServices } from './accounts/services.ts';
import type { AccountAttestations } from './attestations/account-list.ts';
import type { DashboardServices } from './dashboard/services.ts';
import type { MemberKeyService } from './keys/member-keys.ts';
import type { OverviewService } from './overview/service.ts';
import type { MailService } from './mail/service.ts';
import type { CredentialService } from './credentials/vc/service.ts';
import type { UsageService } from './limits/usage.ts';
import type { DomainService } from './domains/service.ts';

/**
 * What procedures reach through their context, built once by the composition root: services only, never a client
 * (no database, pool or config), so a procedure's every query lives in a feature's store.
 */
export interface Services {
  rateLimiter: RateLimiter;
  idempotency: IdempotencyService;
  keys: KeyService;
  /** An account's API keys as its members list and mint them in the dashboard (revoking is `keys`'). */
  memberKeys: MemberKeyService;
  attestations: AttestationService;
  /** An account's attestations as its members list them in the dashboard. */
  accountAttestations: AccountAttestations;
  batches: BatchService;
  revocations: RevokeService;
  /** Off-chain attestations put on chain (docs/decisions.md, "Promotion"). */
  promotions: PromotionService;
  /** Customer attesters: their registration, and their signed requests' nonces. */
  attesters: AttesterService;
  delegations: DelegationService;
  webhooks: WebhookService;
  audit: AuditService;
  /** W3C Verifiable Credentials of attestations, their status lists and the keys that sign them. */
  credentials: CredentialService;
  /** A key's and its account's limits and what they have used (GET /v1/usage). */
  usage: UsageService;
  health: HealthService;
  /** The domains an account proves (DNS TXT or a /.well-known/ file): the claimant a stranger can trust. */
  domains: DomainService;
  /** Accounts and their people (accounts/services.ts): opened, invited, their roles and standing. */
  accounts: AccountServices['accounts'];
  invitations: AccountServices['invitations'];
  members: AccountServices['members'];
  standing: AccountServices['standing'];
  /** The dashboard's first page: quota use, attestations and deliveries over time. */
  overview: OverviewService;
  /** The account dashboard's sign-in, sessions and support team (docs/decisions.md, "Dashboard sign-in"). */
  dashboard: DashboardServices;
  /** Mail: queued in the transaction of what it tells, sent by the worker (docs/operations.md, "Mail"). */
  mail: MailService;
}
