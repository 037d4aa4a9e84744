import { createAccountAttestations } from './attestations/account-list.ts';
import { createAuditService } from './audit/service.ts';
import type { Infrastructure } from './infrastructure.ts';
import type { Services } from './services.ts';
import { createAttestationService } from './attestations/service.ts';
import { createOffchainSigner, remoteOffchainSigner } from './attestations/offchain.ts';
import { DELEGATED_DOMAIN_NAME, OFFCHAIN_DOMAIN_NAME, SCHEMA_UID } from '@attestation-service/protocol';
import { createOnchainSubmitter } from './attestations/onchain.ts';
import { createPromotionService } from './attestations/promote.ts';
import { createBatchService } from './attestations/batch.ts';
import { createDelegationService, easNonceReader } from './attestations/delegated-service.ts';
import { createAttesterService } from './attesters/service.ts';
import { createRevokeService } from './attestations/revocation/service.ts';
import { createKeyService, type KeyService } from './keys/service.ts';
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
import { findPendingInvitation, invitationAllowsSignUp } from './accounts/invitation-tokens.ts';
import { bodySealer } from './mail/seal.ts';
import { createMailService, MAIL_OFF_REASON, type MailService } from './mail/service.ts';
import { createSessionService } from './dashboard/sessions.ts';
import { createOverviewService } from './overview/service.ts';
import { createCredentialIssuer } from './credentials/vc/issuer.ts';
import { createCredentialService } from './credentials/vc/service.ts';
import { credentialKeySealer } from './credentials/vc/key-seal.ts';
import { dashboardOrigins } from './dashboard/origins.ts';
import { createUsageService } from './limits/usage.ts';
import { createAccountServices, type AccountServices } from './accounts/services.ts';
import { vouchAccountsOwnedBy } from './accounts/standing-store.ts';
import { accountOpenLimiter } from './limits/account-openings.ts';
import { invitationMailLimiter } from './limits/invitation-mails.ts';
import { createSupportService } from './dashboard/support.ts';
import { createDomainService } from './domains/service.ts';
import { createDomainProver, txtLookup } from './domains/proof.ts';

type BuildOptions = { webhookPolicy: UrlPolicy; secrets: ServiceSecrets; refusals?: RefusalObserver | undefined };

/** Builds every service from the opened infrastructure; nothing here listens, connects or reads the environment. */
export function buildServices(infra: Infrastructure, opts: BuildOptions): Services {
  const { config, clock, log } = infra;
  const { webhookPolicy } = opts;
  const mail = createMailService({
    db: infra.db,
    clock,
    log,
    mode: config.mail.mode,
    sealer: bodySealer(opts.secrets),
  });
  const attesting = attestationServices(infra, opts);
  const keys = createKeyService(infra.db, clock);
  const accounts = createAccountServices({
    ...infra,
    secrets: opts.secrets,
    mail,
    limitOpenings: accountOpenLimiter(
      infra.windows,
      clock,
      config.dashboard.accountCaps.perNetworkPerDay,
      config.rateLimitIpv6Prefix,
    ),
    limitInvitationMail: invitationMailLimiter(infra.windows, clock, config.mail.invitationCaps),
  });
  return {
    ...accounts,
    ...attesting,
    dashboard: dashboardServices(infra, opts, { mail, keys, accounts: accounts.accounts }),
    overview: createOverviewService({ db: infra.db, clock }),
    memberKeys: createMemberKeyService({ db: infra.db, clock, lastUse: keys.lastUse }),
    accountAttestations: createAccountAttestations({ db: infra.db, verifyBaseUrl: config.verifyBaseUrl }),
    mail,
    rateLimiter: createRateLimiter(infra.windows, clock, opts.refusals, { ipv6Prefix: config.rateLimitIpv6Prefix }),
    // a webhook's secret is in its creation's and rotation's answers: those are stored sealed
    idempotency: createIdempotencyService(infra.db, clock, {
      sealer: sealer(opts.secrets, 'idempotency-answer-seal', 'r1'),
    }),
    keys,
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
    health: healthService(infra, mail),
  };
}

/** The signers, the chain submitter and the services of attestations: made, delegated, revoked, promoted, batched. */
function attestationServices(infra: Infrastructure, opts: BuildOptions) {
  const { config, clock, log, chain } = infra;
  const domain = {
    name: OFFCHAIN_DOMAIN_NAME,
    version: chain.easVersion,
    chainId: chain.chainId,
    verifyingContract: chain.eas,
  } as const;
  // with a remote signer, off-chain attestations are signed there too: no process holds the key
  const signer =
    chain.signing === 'remote'
      ? remoteOffchainSigner({ account: chain.account, domain, schemaUid: SCHEMA_UID })
      : createOffchainSigner({ privateKey: config.chain.relayerPrivateKey, domain, schemaUid: SCHEMA_UID });
  const delegations = createDelegationService({
    db: infra.db,
    clock,
    domain: {
      name: DELEGATED_DOMAIN_NAME,
      version: chain.easVersion,
      chainId: chain.chainId,
      verifyingContract: chain.eas,
    },
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
  const made = { db: infra.db, clock, signer, chainId: chain.chainId, verifyBaseUrl: config.verifyBaseUrl };
  const attestations = createAttestationService({
    ...made,
    onchain,
    delegations,
    log,
    answerCacheBytes: config.answerCacheBytes,
  });
  return {
    attestations,
    delegations,
    attesters: createAttesterService({ db: infra.db, clock, chainId: chain.chainId }),
    revocations: createRevokeService({ db: infra.db, onchain }),
    promotions: createPromotionService({
      db: infra.db,
      clock,
      onchain,
      delegations,
      chainId: chain.chainId,
      schemaUid: SCHEMA_UID,
      verifyBaseUrl: config.verifyBaseUrl,
      refusals: opts.refusals,
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
    batches: createBatchService({ ...made, onchain, delegations }),
  };
}

/** The dashboard's sign-in (better-auth), its sessions and the support team. */
function dashboardServices(
  infra: Infrastructure,
  opts: BuildOptions,
  deps: { mail: MailService; keys: KeyService; accounts: AccountServices['accounts'] },
): Services['dashboard'] {
  const { config, clock, log } = infra;
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
    mail: deps.mail,
  });
  return {
    auth,
    sessions: createSessionService({ db: infra.db, auth, clock, origins }),
    support: createSupportService({ db: infra.db, clock, keys: deps.keys, accounts: deps.accounts }),
    signup: config.dashboard.signup,
    webhookPrivateUrls: config.webhooks.allowPrivateUrls,
  };
}

/** Readiness: the database and the parts infrastructure reports; health: the chain, and whether mail is sent. */
function healthService(infra: Infrastructure, mail: MailService) {
  return createHealthService(
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
  );
}
