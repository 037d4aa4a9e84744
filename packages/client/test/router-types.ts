// Type-level proof (checked by `tsc`, part of the tests) that the SDK's hand-written public types are exactly the
// router's: a change to a contract that the SDK does not follow fails the type-check.
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@attestation-service/server/router';
import type {
  ErrorCode as ServerErrorCode,
  ErrorDetailsByCode as ServerErrorDetailsByCode,
} from '@attestation-service/server/errors';
import type { ErrorCode, ErrorDetailsByCode } from '../src/errors.ts';
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
  AuditEntry,
  AuditExportInput,
  DeliveriesInput,
  DeliveryPage,
  Health,
  Readiness,
  Usage,
  MineInput,
  Provenance,
  RevokeResult,
  PromotedAttestation,
  PromotionBatchResult,
  SearchInput,
  SearchResult,
  RotatedWebhookSecret,
  RotateSecretInput,
  SentTestEvent,
  Webhook,
} from '../src/types.ts';

type In = inferRouterInputs<AppRouter>;
/** The audit export is streamed: the router's output is an async iterable of entries. */
type ExportedEntry = inferRouterOutputs<AppRouter>['audit']['export'] extends AsyncIterable<infer E> ? E : never;
type Out = inferRouterOutputs<AppRouter>;

type Expect<T extends true> = T;
/** Each side assignable to the other: a field added, removed or retyped on either side fails. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Whatever the SDK lets a caller send, the router accepts (the router may accept more, e.g. a string limit). */
type Accepts<Router, Sdk> = [Sdk] extends [Router] ? true : false;

export type Checks = [
  Expect<Accepts<In['attestations']['create'], CreateAttestationInput>>,
  Expect<Same<CreatedAttestation, Out['attestations']['create']>>,
  Expect<Same<Attestation, Out['attestations']['get']>>,
  Expect<Accepts<In['attestations']['search'], SearchInput>>,
  Expect<Same<SearchResult, Out['attestations']['search']>>,
  Expect<Accepts<In['attestations']['batch'], BatchInput>>,
  Expect<Same<BatchResult, Out['attestations']['batch']>>,
  Expect<Same<RevokeResult, Out['attestations']['revoke']>>,
  Expect<Same<PromotedAttestation, Out['attestations']['promote']>>,
  Expect<Same<PromotionBatchResult, Out['attestations']['promoteBatch']>>,
  Expect<Same<Provenance, Out['attestations']['provenance']>>,
  Expect<Accepts<In['webhooks']['create'], CreateWebhookInput>>,
  Expect<Same<CreatedWebhook, Out['webhooks']['create']>>,
  Expect<Same<{ data: Webhook[] }, Out['webhooks']['list']>>,
  Expect<Accepts<In['webhooks']['deliveries'], DeliveriesInput & { id: string }>>,
  Expect<Same<DeliveryPage, Out['webhooks']['deliveries']>>,
  Expect<Accepts<In['webhooks']['rotateSecret'], RotateSecretInput & { id: string }>>,
  Expect<Same<RotatedWebhookSecret, Out['webhooks']['rotateSecret']>>,
  Expect<Same<SentTestEvent, Out['webhooks']['sendTest']>>,
  Expect<Same<AuditEntry, ExportedEntry>>,
  Expect<Same<AttesterChallenge, Out['attesters']['challenge']>>,
  Expect<Same<Attester, Out['attesters']['register']>>,
  Expect<Same<{ data: Attester[] }, Out['attesters']['list']>>,
  Expect<Same<AttesterNonce, Out['attesters']['nonce']>>,
  Expect<Same<Health, Out['system']['health']>>,
  Expect<Same<Readiness, Out['system']['ready']>>,
  Expect<Same<Usage, Out['usage']['get']>>,
  Expect<Accepts<In['attestations']['search'], MineInput & { mine: 'true' }>>,
  Expect<
    Accepts<
      In['audit']['export'],
      Omit<AuditExportInput, 'from' | 'to' | 'signal'> & { from?: string; to?: string; format?: 'json' }
    >
  >,
  // the SDK's codes are the server's (errors.ts ERROR_STATUS) plus its own transport failure
  Expect<Same<ErrorCode, ServerErrorCode | 'NETWORK_ERROR'>>,
  // and its typed details are the ones the server's AppError constructor holds every error to, code by code
  Expect<Same<keyof ErrorDetailsByCode, keyof ServerErrorDetailsByCode>>,
  Expect<Same<{ [C in keyof ErrorDetailsByCode]: ErrorDetailsByCode[C] }, ServerErrorDetailsByCode>>,
];
