import { createTRPCClient, httpLink, type TRPCClient, type TRPCLink } from '@trpc/client';
import type { AppRouter } from '@attestation-service/server/router';
import { wrap } from './call.ts';
import { retryingFetch, type RetryOptions } from './transport.ts';
import type { RestDeps } from './rest.ts';
import { streamAuditExport } from './audit.ts';
import { fetchCredential, signContentCredentials, type ContentCredentialsOptions } from './credentials.ts';
import type { AuditEntry, AuditExportInput } from './types.ts';
import { signDelegation, signDelegations, type AttesterSigner, type SignDelegationOptions } from './signing.ts';
import type {
  Attester,
  AttesterChallenge,
  AttesterNonce,
  Attestation,
  BatchInput,
  BatchResult,
  CreateAttestationInput,
  CreatedAttestation,
  CreatedWebhook,
  CreateWebhookInput,
  DeliveriesInput,
  DeliveryPage,
  Health,
  PromotedAttestation,
  PromotionBatchResult,
  Provenance,
  Readiness,
  RevokeResult,
  RotatedWebhookSecret,
  RotateSecretInput,
  SearchInput,
  SearchResult,
  SentTestEvent,
  MineInput,
  Usage,
  Webhook,
} from './types.ts';

export * from './types.ts';
export * from './ai-details.ts';
export {
  AttestationServiceError,
  isServiceError,
  type ErrorCode,
  type ErrorDetails,
  type ErrorDetailsByCode,
} from './errors.ts';
export {
  verifyWebhookSignature,
  signWebhookBody,
  verifyWebhook,
  signStandardWebhook,
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookRefusal,
  type WebhookSecret,
} from './webhooks.ts';
export {
  verifyAnchor,
  anchorProofHolds,
  EAS_PREDEPLOY,
  type AnchoredRecord,
  type AnchorFailure,
  type AnchorVerification,
  type VerifyAnchorOptions,
} from './anchor.ts';
export {
  verifyCredential,
  statusBit,
  CredentialVerificationError,
  type AttestationCredential,
  type ContentCredentialsOptions,
  type VerifiedCredential,
  type VerifyCredentialOptions,
} from './credentials.ts';
export {
  verifyOffchain,
  type OffchainFailure,
  type OffchainVerification,
  type VerifyOffchainOptions,
} from './offchain.ts';
export { offchainUid } from '@attestation-service/protocol';
export type { RetryOptions } from './transport.ts';
export {
  signDelegation,
  signDelegations,
  contentHashOf,
  type AttesterSigner,
  type SignDelegationOptions,
} from './signing.ts';

export interface ClientOptions {
  /** The service's base URL, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** `svc_<tier>_<prefix>_<secret>`; public reads work without one. */
  apiKey?: string;
  /** Retry policy for 429 RATE_LIMITED / 503 and network failures of repeatable calls. */
  retry?: RetryOptions;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

/** Per-call options of writes. */
export interface WriteOptions {
  /** Sent as Idempotency-Key; the SDK makes one per call when absent, so its own retries never repeat a write. */
  idempotencyKey?: string;
}

type CallContext = { idempotencyKey?: string };

/** A typed client of the attestation service (over its /trpc endpoint, typed from the service's router). */
export function createClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const link: TRPCLink<AppRouter> = httpLink({
    url: `${baseUrl}/trpc`,
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry),
    headers: ({ op }) => {
      const headers: Record<string, string> = {};
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      const { idempotencyKey } = op.context as CallContext;
      if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
      return headers;
    },
  });
  const trpc = createTRPCClient<AppRouter>({ links: [link] });
  const rest = {
    baseUrl,
    apiKey: options.apiKey,
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry),
  };
  const write = (opts?: WriteOptions) => ({
    context: { idempotencyKey: opts?.idempotencyKey ?? crypto.randomUUID() } satisfies CallContext,
  });

  const attesters = attesterCalls(trpc, write);
  const attestations = attestationCalls(trpc, rest, write);

  return {
    attesters,
    attestations: { ...attestations, ...signedCalls(trpc, write, { ...attestations, nonce: attesters.nonce }) },
    webhooks: {
      /** Subscribes a URL to events; the result's `secret` is shown only this once. */
      create: (input: CreateWebhookInput, opts?: WriteOptions): Promise<CreatedWebhook> =>
        wrap(() => trpc.webhooks.create.mutate(input, write(opts))),
      list: (): Promise<{ data: Webhook[] }> => wrap(() => trpc.webhooks.list.query({})),
      delete: (id: string): Promise<void> => wrap(() => trpc.webhooks.delete.mutate({ id }, write())),
      /** A new secret, shown only in the result; the previous one keeps signing for the window asked (default 24 h). */
      rotateSecret: (id: string, input: RotateSecretInput = {}, opts?: WriteOptions): Promise<RotatedWebhookSecret> =>
        wrap(() => trpc.webhooks.rotateSecret.mutate({ id, ...input }, write(opts))),
      /** Queues a `webhook.test` event to the subscription, delivered and signed like any event. */
      sendTest: (id: string, opts?: WriteOptions): Promise<SentTestEvent> =>
        wrap(() => trpc.webhooks.sendTest.mutate({ id }, write(opts))),
      /** One page of a subscription's deliveries, newest first, each with its attempts. */
      deliveries: (id: string, input: DeliveriesInput = {}): Promise<DeliveryPage> =>
        wrap(() => trpc.webhooks.deliveries.query({ id, ...input })),
    },
    audit: {
      /** Your account's audit entries in [from, to) (default: the last 30 days), streamed: `for await (const entry of …)`. */
      export: (input: AuditExportInput = {}): AsyncGenerator<AuditEntry> => streamAuditExport(rest, input),
    },
    /** The calling key's per-minute window and this month's on-chain quota, and its account's. */
    usage: (): Promise<Usage> => wrap(() => trpc.usage.get.query({})),
    system: {
      health: (): Promise<Health> => wrap(() => trpc.system.health.query({})),
      ready: (): Promise<Readiness> => wrap(() => trpc.system.ready.query({})),
    },
  };
}

export type AttestationClient = ReturnType<typeof createClient>;

type Trpc = TRPCClient<AppRouter>;
type Write = (opts?: WriteOptions) => { context: CallContext };

/** `client.attesters`: your account's registered attester addresses. */
function attesterCalls(trpc: Trpc, write: Write) {
  const calls = {
    /** A challenge for an address: its `message` is what the address signs (EIP-191) to be registered. */
    challenge: (address: string, opts?: WriteOptions): Promise<AttesterChallenge> =>
      wrap(() => trpc.attesters.challenge.mutate({ address }, write(opts))),
    /** Registers the signer's address for your account: asks for a challenge, signs it, hands it back. */
    async register(signer: AttesterSigner, opts?: WriteOptions): Promise<Attester> {
      if (!signer.signMessage) throw new TypeError('the signer cannot sign messages (signMessage)');
      const challenge = await calls.challenge(signer.address);
      const signature = await signer.signMessage({ message: challenge.message });
      return wrap(() => trpc.attesters.register.mutate({ challengeId: challenge.id, signature }, write(opts)));
    },
    list: (): Promise<{ data: Attester[] }> => wrap(() => trpc.attesters.list.query({})),
    /** The nonce the address's next on-chain request is signed for, and the chain, EAS and schema to sign under. */
    nonce: (address: string): Promise<AttesterNonce> => wrap(() => trpc.attesters.nonce.query({ address })),
    remove: (address: string): Promise<void> => wrap(() => trpc.attesters.remove.mutate({ address }, write())),
  };
  return calls;
}

/** `client.attestations`' calls of your API key: create, read, search, revoke and promote. */
function attestationCalls(trpc: Trpc, rest: RestDeps, write: Write) {
  return {
    /** Creates one attestation (on-chain unless `mode: 'offchain'`). */
    create: (input: CreateAttestationInput, opts?: WriteOptions): Promise<CreatedAttestation> =>
      wrap(() => trpc.attestations.create.mutate(input, write(opts))),
    /** Creates up to 100 attestations; all on-chain items go into one transaction. */
    batch: (input: BatchInput, opts?: WriteOptions): Promise<BatchResult> =>
      wrap(() => trpc.attestations.batch.mutate(input, write(opts))),
    /** Reads one attestation by uid (public). */
    get: (uid: string): Promise<Attestation> => wrap(() => trpc.attestations.get.query({ uid })),
    /** The chain from this attestation back through each `refUid` to its origin, newest first (public). */
    provenance: (uid: string): Promise<Provenance> => wrap(() => trpc.attestations.provenance.query({ uid })),
    /** One page of the attestations of a content hash, newest first (public). */
    search: (input: SearchInput): Promise<SearchResult> => wrap(() => trpc.attestations.search.query(input)),
    /** One page of your account's own attestations, newest first, filtered by type, mode and time (your key). */
    mine: (input: MineInput = {}): Promise<SearchResult> =>
      wrap(() => trpc.attestations.search.query({ ...input, mine: 'true' })),
    /** Every attestation of a content hash, page by page. */
    async *searchAll(input: Omit<SearchInput, 'cursor'>): AsyncGenerator<Attestation> {
      let cursor: string | undefined;
      do {
        const page: SearchResult = await wrap(() => trpc.attestations.search.query({ ...input, cursor }));
        yield* page.data;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    },
    /** The attestation as a W3C Verifiable Credential (`vc+jwt`, public); check it with `verifyCredential`. */
    credential: (uid: string): Promise<string> => fetchCredential(rest, uid),
    /** The asset with a signed C2PA manifest naming the attestation (its bytes must be the attested content). */
    contentCredentials: (
      uid: string,
      bytes: Uint8Array | ArrayBuffer | Blob,
      opts: ContentCredentialsOptions,
    ): Promise<Uint8Array> => signContentCredentials(rest, uid, bytes, opts),
    /** Revokes an attestation your account created. */
    revoke: (uid: string, input: { reason?: string } = {}, opts?: WriteOptions): Promise<RevokeResult> =>
      wrap(() => trpc.attestations.revoke.mutate({ uid, ...input }, write(opts))),
    /** Puts your off-chain attestation on chain (charged like an on-chain create); again: the same answer. */
    promote: (uid: string, opts?: WriteOptions): Promise<PromotedAttestation> =>
      wrap(() => trpc.attestations.promote.mutate({ uid }, write(opts))),
    /** Up to 100 at once; each member answers its on-chain attestation or its own error. */
    promoteMany: (uids: string[], opts?: WriteOptions): Promise<PromotionBatchResult> =>
      wrap(() => trpc.attestations.promoteBatch.mutate({ uids }, write(opts))),
  };
}

/** `client.attestations`' calls signed by your registered attester (its address is the claimant; gas is ours). */
function signedCalls(
  trpc: Trpc,
  write: Write,
  calls: Pick<ReturnType<typeof attestationCalls>, 'create' | 'batch'> &
    Pick<ReturnType<typeof attesterCalls>, 'nonce'>,
) {
  return {
    /** Creates one attestation signed by your registered attester (its address is the claimant); gas is ours. */
    createSigned: async (
      signer: AttesterSigner,
      input: CreateAttestationInput,
      opts?: WriteOptions & SignDelegationOptions,
    ): Promise<CreatedAttestation> =>
      calls.create(await signDelegation(signer, await calls.nonce(signer.address), input, opts), opts),
    /** A batch signed by one registered attester: its on-chain items in one `multiAttestByDelegation`. */
    batchSigned: async (
      signer: AttesterSigner,
      inputs: CreateAttestationInput[],
      opts?: WriteOptions & SignDelegationOptions,
    ): Promise<BatchResult> =>
      calls.batch(
        { attestations: await signDelegations(signer, await calls.nonce(signer.address), inputs, opts) },
        opts,
      ),
    /**
     * Puts on chain an off-chain attestation your registered attester signed: reads it, signs its EAS delegated
     * request with that attester at its next nonce, and sends it (the claim stays the attester's; gas is ours).
     */
    promoteSigned: async (
      signer: AttesterSigner,
      uid: string,
      opts?: WriteOptions & Pick<SignDelegationOptions, 'deadline'>,
    ): Promise<PromotedAttestation> => {
      const record = await wrap(() => trpc.attestations.get.query({ uid }));
      const { delegation } = await signDelegation(
        signer,
        await calls.nonce(signer.address),
        {
          type: record.type,
          contentHash: record.contentHash,
          contentType: record.contentType,
          mode: 'onchain',
        },
        opts,
      );
      return wrap(() => trpc.attestations.promote.mutate({ uid, delegation }, write(opts)));
    },
  };
}
