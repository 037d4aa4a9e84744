import { createAccountAttestations } from './attestations/account-list.ts';
import { createAuditService } from './audit/service.ts';
import type { Infrastructure } from './infrastructure.ts';
import type { Services } from './services.ts';
import { createAttestationService } from './attestations/service.ts';
import { createOffchainSigner, remoteOffchainSigner } from './attestations/offchain.ts';
import { SCHEMA_UID } from './chain/schema.ts';
import { createOnchainSubmitter } from './attestations/onchain.ts';
import { createPromotionService } from './attestations/promote.ts';
import { createBatchService } from './attestations/batch.ts';
import { createDelegationService, easNonceReader } from './attestations/delegated-service.ts';
import { createAttesterService } from './attesters/service.ts';
import { createRevokeService } from './attestations/revocation/service.ts';
import { createKeyService } from './keys/service.ts';
import { createMemberKeyService } from './keys/member-keys.ts';
import { createIdempotencyService } from './idempotency/service.ts';
import { createRateLimiter } from './limits/rate-limit.ts';
import type { RefusalObserver } from './limits/refusals.ts';
import { chainComponents } from './chain/health.ts';
import { ping } from './db/ping-store.ts';
import { createHealthService } from './system/health.ts';
import { createWebhookService } from './webhooks/service.ts';
import { webhookSecrets } from './webhooks/secret-seal.ts';
import { sealer } from './system/sealer.ts';
import type { UrlPolicy } from './webhooks/url-guard.ts';
import type { ServiceSecrets } from './system/service-secret.ts';
import { createDashboardAuth, sessionCookieSecret } from './dashboard/auth.ts';
import { findPendingInvitation, invitationAllowsSignUp } from './dashboard/invitation-tokens.ts';
import { bodySealer } from './mail/seal.ts';
import { createMailService, MAIL_OFF_REASON } from './mail/service.ts';
import { createSessionService } from './dashboard/sessions.ts';
import { createOverviewService } from './dashboard/overview.ts';
import { createCredentialIssuer } from './credentials/vc/issuer.ts';
import { createCredentialService } from './credentials/vc/service.ts';
import { credentialKeySealer } from './credentials/vc/key-seal.ts';
import { dashboardOrigins } from './dashboard/origins.ts';
import { createUsageService } from './limits/usage.ts';
import { createPeopleServices } from './dashboard/services.ts';
import { vouchAccountsOwnedBy } from './dashboard/standing-store.ts';
import { createDomainService } from './domains/service.ts';
import { createDomainProver, txtLookup } from './domains/proof.ts';

/** Builds every service from the opened infrastructure; nothing here listens, connects or reads the environment. */
export function buildServices(
  infra: Infrastructure,
  opts: { webhookPolicy: UrlPolicy; secrets: ServiceSecrets; refusals?: RefusalObserver | undefined },
): Services {
  const { config, clock, log, chain } = infra;
  const domain = {
    name: 'EAS Attestation',
    version: chain.easVersion,
    chainId: chain.chainId,
    verifyingContract: chain.eas,
  } as const;
  // with a remote signer, off-chain attestations are signed there too: no process holds the key
  const signer =
    chain.signing === 'remote'
      ? remoteOffchainSigner({ account: chain.account, domain, schemaUid: SCHEMA_UID })
      : createOffchainSigner({ privateKey: config.chain.relayerPrivateKey, domain, schemaUid: SCHEMA_UID });
  const { webhookPolicy } = opts;
  const delegations = createDelegationService({
    db: infra.db,
    clock,
    domain: { name: 'EAS', version: chain.easVersion, chainId: chain.chainId, verifyingContract: chain.eas },
    serviceAttester: chain.account.address,
    verifyBaseUrl: config.verifyBaseUrl,
    chainNonce: easNonceReader(chain.publicClient, chain.eas),
  });
  const onchain = createOnchainSubmitter({
    db: infra.db,
    clock,
    health: infra.chainHealth,
    chainId: chain.chainId,
    schemaUid: SCHEMA_UID,
    attester: chain.account.address,
    refusals: opts.refusals,
    delegations,
    log,
  });
  const mail = createMailService({
    db: infra.db,
    clock,
    log,
    mode: config.mail.mode,
    sealer: bodySealer(opts.secrets),
  });
  const origins = dashboardOrigins(config);
  const auth = createDashboardAuth({
    db: infra.db,
    publicBaseUrl: config.publicBaseUrl,
    origins,
    secret: sessionCookieSecret(opts.secrets),
    signup: config.dashboard.signup,
    windows: infra.windows,
    ipv6Prefix: config.rateLimitIpv6Prefix,
    clock,
    log,
    addressConfirmed: (userId) => vouchAccountsOwnedBy(infra.db, userId),
    mayCreateUser: (token, email) => invitationAllowsSignUp(infra.db, token, email, new Date(clock.now())),
    invitedAddress: async (token, email) =>
      token !== undefined &&
      (await findPendingInvitation(infra.db, token, new Date(clock.now())))?.email?.toLowerCase() === email,
    mail,
  });
  const attestations = createAttestationService({
    db: infra.db,
    clock,
    signer,
    chainId: chain.chainId,
    verifyBaseUrl: config.verifyBaseUrl,
    onchain,
    delegations,
    log,
  });
  const keys = createKeyService(infra.db, clock);
  return {
    dashboard: {
      auth,
      sessions: createSessionService({ db: infra.db, auth, clock, origins }),
      signup: config.dashboard.signup,
      webhookPrivateUrls: config.webhooks.allowPrivateUrls,
      overview: createOverviewService({ db: infra.db, clock }),
      keys: createMemberKeyService({ db: infra.db, clock, lastUse: keys.lastUse }),
      attestations: createAccountAttestations({ db: infra.db, verifyBaseUrl: config.verifyBaseUrl }),
      ...createPeopleServices({ ...infra, keys, secrets: opts.secrets, mail }),
    },
    mail,
    rateLimiter: createRateLimiter(infra.windows, clock, opts.refusals, { ipv6Prefix: config.rateLimitIpv6Prefix }),
    // a webhook's secret is in its creation's and rotation's answers: those are stored sealed
    idempotency: createIdempotencyService(infra.db, clock, {
      sealer: sealer(opts.secrets, 'idempotency-answer-seal', 'r1'),
    }),
    keys,
    attestations,
    delegations,
    attesters: createAttesterService({ db: infra.db, clock, chainId: chain.chainId }),
    revocations: createRevokeService({ db: infra.db, onchain }),
    promotions: createPromotionService({
      db: infra.db,
      clock,
      onchain,
      chainId: chain.chainId,
      schemaUid: SCHEMA_UID,
      verifyBaseUrl: config.verifyBaseUrl,
      refusals: opts.refusals,
    }),
    webhooks: createWebhookService({
      db: infra.db,
      clock,
      policy: webhookPolicy,
      secrets: webhookSecrets(opts.secrets),
      development: !config.productionBecause,
    }),
    audit: createAuditService({ db: infra.db, clock, log }),
    usage: createUsageService({ db: infra.db, clock }),
    domains: createDomainService({
      db: infra.db,
      clock,
      // the proof file is fetched as a webhook is posted: public addresses only, unless WEBHOOK_ALLOW_PRIVATE_URLS
      prove: createDomainProver({ lookup: txtLookup(config.domains.dnsServers), policy: webhookPolicy }),
    }),
    credentials: createCredentialService({
      db: infra.db,
      clock,
      attestation: attestations.row,
      issuer: createCredentialIssuer({
        db: infra.db,
        clock,
        sealer: credentialKeySealer(opts.secrets),
        publicBaseUrl: config.publicBaseUrl,
      }),
      context: { publicBaseUrl: config.publicBaseUrl, verifyBaseUrl: config.verifyBaseUrl, easAddress: chain.eas },
    }),
    batches: createBatchService({
      db: infra.db,
      clock,
      signer,
      onchain,
      delegations,
      chainId: chain.chainId,
      verifyBaseUrl: config.verifyBaseUrl,
    }),
    health: createHealthService(
      {
        database: () => ping(infra.db),
        ...infra.readiness,
      },
      // reads, off-chain writes and the dashboard need no chain: an empty wallet must not take replicas out
      [
        () => chainComponents(infra.chainHealth.latest()),
        // said, not degraded: a deployment may choose to send no mail (docs/operations.md, "Mail")
        () => ({ components: {}, reasons: mail.on ? {} : ({ mail: MAIL_OFF_REASON } as Record<string, string>) }),
      ],
    ),
  };
}
