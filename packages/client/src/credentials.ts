import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { restCall, type RestDeps } from './rest.ts';

/** The W3C VC 2.0 the service issues for an attestation (`GET /v1/attestations/{uid}/credential`). */
export interface AttestationCredential {
  '@context': string[];
  id: string;
  type: string[];
  issuer: string;
  validFrom: string;
  credentialSubject: {
    id: string;
    contentHash: string;
    contentType: string;
    origin: 'human' | 'ai';
    /** The IPTC digital source type URI. */
    digitalSourceType: string;
    attester: string;
    claimant: { kind: 'service' | 'account'; accountName?: string | null };
    eas: {
      uid: string;
      mode: 'onchain' | 'offchain';
      chainId: number;
      contract: string;
      schema: string;
      txHash: string | null;
    };
    verifyUrl: string;
  };
  credentialStatus: {
    id: string;
    type: 'BitstringStatusListEntry';
    statusPurpose: 'revocation';
    statusListIndex: string;
    statusListCredential: string;
  };
}

export interface VerifyCredentialOptions {
  /** The issuer's keys: its JWKS (`/.well-known/jwks.json`) as an object, or that URL to fetch (and cache). */
  jwks: JSONWebKeySet | string | URL;
  /** Also fetch the credential's status list, verify it with the same keys and read its bit (default true). */
  checkStatus?: boolean;
  /** The issuer the credential must name (its `did:web`); any, when absent. */
  issuer?: string;
  fetch?: typeof fetch;
}

export interface VerifiedCredential {
  credential: AttestationCredential;
  /** The key that signed it. */
  kid: string;
  /** From the status list; undefined when `checkStatus` is false. */
  revoked?: boolean;
}

/** Why a credential did not verify: its signature, its shape or its status list. */
export class CredentialVerificationError extends Error {
  override readonly name = 'CredentialVerificationError';
}

function keySet(jwks: VerifyCredentialOptions['jwks']): JWTVerifyGetKey {
  if (typeof jwks === 'string' || jwks instanceof URL) return createRemoteJWKSet(new URL(jwks));
  return createLocalJWKSet(jwks);
}

async function verifiedPayload(jwt: string, keys: JWTVerifyGetKey, issuer: string | undefined) {
  try {
    const { payload, protectedHeader } = await jwtVerify(jwt, keys, { typ: 'vc+jwt', algorithms: ['ES256'] });
    if (issuer !== undefined && payload.issuer !== issuer)
      throw new CredentialVerificationError(`the credential's issuer is ${String(payload.issuer)}, not ${issuer}`);
    return { payload: payload as Record<string, unknown>, kid: protectedHeader.kid ?? '' };
  } catch (error) {
    if (error instanceof CredentialVerificationError) throw error;
    throw new CredentialVerificationError(
      `the credential does not verify: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** The bit at `index` of a Bitstring Status List's encodedList ('u' + base64url of the GZIP-compressed bits). */
export async function statusBit(encodedList: string, index: number): Promise<boolean> {
  if (!encodedList.startsWith('u')) throw new CredentialVerificationError('encodedList is not multibase base64url');
  const base64 = encodedList.slice(1).replaceAll('-', '+').replaceAll('_', '/');
  const gzipped = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  // DecompressionStream: in browsers, edge runtimes and Node alike (no zlib)
  const stream = new Blob([gzipped]).stream().pipeThrough(new DecompressionStream('gzip'));
  const bits = new Uint8Array(await new Response(stream).arrayBuffer());
  return ((bits[index >> 3] ?? 0) & (0x80 >> (index & 7))) !== 0;
}

/**
 * Verifies an attestation credential (`vc+jwt`, ES256) against the issuer's JWKS, and by default its revocation: the
 * status list it names is fetched, verified with the same keys, and its bit read. Throws CredentialVerificationError.
 */
export async function verifyCredential(jwt: string, options: VerifyCredentialOptions): Promise<VerifiedCredential> {
  const keys = keySet(options.jwks);
  const { payload, kid } = await verifiedPayload(jwt, keys, options.issuer);
  const credential = payload as unknown as AttestationCredential;
  if (!credential.type?.includes('VerifiableCredential') || !credential.credentialSubject)
    throw new CredentialVerificationError('the JWT is not a Verifiable Credential');
  if (options.checkStatus === false) return { credential, kid };
  const status = credential.credentialStatus;
  if (status?.type !== 'BitstringStatusListEntry')
    throw new CredentialVerificationError('the credential names no BitstringStatusListEntry');
  const res = await (options.fetch ?? globalThis.fetch)(status.statusListCredential);
  if (!res.ok) throw new CredentialVerificationError(`its status list answered ${res.status}`);
  const list = await verifiedPayload(await res.text(), keys, credential.issuer);
  const subject = list.payload.credentialSubject as { encodedList?: string; statusPurpose?: string } | undefined;
  if (!subject?.encodedList || subject.statusPurpose !== status.statusPurpose)
    throw new CredentialVerificationError('its status list is not a revocation BitstringStatusList');
  return { credential, kid, revoked: await statusBit(subject.encodedList, Number(status.statusListIndex)) };
}

/** `GET /v1/attestations/{uid}/credential`: the attestation as a `vc+jwt` (check it with verifyCredential). */
export async function fetchCredential(deps: RestDeps, uid: string): Promise<string> {
  const path = `/v1/attestations/${encodeURIComponent(uid)}/credential`;
  return (await restCall(deps, path, { headers: { accept: 'application/vc+jwt' } }, 'The credential')).text();
}

export interface ContentCredentialsOptions {
  /** The asset's media type (`image/jpeg`, `video/mp4`, …): sent as Content-Type. */
  mediaType: string;
  /** The sidecar manifest store (`application/c2pa`) instead of the asset with the manifest embedded. */
  sidecar?: boolean;
  signal?: AbortSignal;
}

/**
 * `POST /v1/attestations/{uid}/content-credentials`: the asset back with a C2PA manifest the service signed, naming
 * the attestation (or the sidecar manifest store). The bytes must be the attested content (else CONTENT_MISMATCH).
 */
export async function signContentCredentials(
  deps: RestDeps,
  uid: string,
  bytes: Uint8Array | ArrayBuffer | Blob,
  options: ContentCredentialsOptions,
): Promise<Uint8Array> {
  const headers: Record<string, string> = {
    'content-type': options.mediaType,
    accept: options.sidecar ? 'application/c2pa' : options.mediaType,
  };
  if (deps.apiKey) headers.authorization = `Bearer ${deps.apiKey}`;
  const path = `/v1/attestations/${encodeURIComponent(uid)}/content-credentials`;
  const init = { method: 'POST', headers, body: bytes as RequestInit['body'], signal: options.signal };
  return new Uint8Array(await (await restCall(deps, path, init, 'Content credentials')).arrayBuffer());
}
