import type { AttestationRow } from '../../attestations/store.ts';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { TextBody } from '../../http/text-body.ts';
import {
  attestationCredential,
  STATUS_LIST_TTL_SECONDS,
  statusListCredential,
  type CredentialContext,
} from './credential.ts';
import { VC_JWT_MEDIA_TYPE, type CredentialIssuer, type PublicJwk } from './issuer.ts';
import { encodeStatusList } from './status-list.ts';
import { revokedInList } from './status-list-store.ts';

const DID_CONTEXT = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'];

export interface CredentialService {
  /** An attestation as a signed `vc+jwt`, made on each ask with the current key (the claim it states never changes). */
  credential(uid: string): Promise<TextBody>;
  /** A status list as a signed `vc+jwt` BitstringStatusListCredential, cached for STATUS_LIST_TTL_SECONDS at most. */
  statusList(list: bigint): Promise<TextBody>;
  jwks(): Promise<{ keys: PublicJwk[] }>;
  /** The issuer's `did:web` document: every published key, as a JsonWebKey verification method. */
  didDocument(): Promise<Record<string, unknown>>;
}

export function createCredentialService(deps: {
  db: Db;
  clock: Clock;
  issuer: CredentialIssuer;
  /** An attestation by uid: the attestation service's batched read (one query for the reads of a turn). */
  attestation: (uid: string) => Promise<AttestationRow | undefined>;
  context: Omit<CredentialContext, 'issuer'>;
}): CredentialService {
  const { db, clock, issuer } = deps;
  const context: CredentialContext = { ...deps.context, issuer: issuer.did };
  const vcJwt = (jwt: string, cache: string) => new TextBody(VC_JWT_MEDIA_TYPE, jwt, { 'Cache-Control': cache });
  return {
    async credential(uid) {
      const row = await deps.attestation(uid);
      if (!row) throw notFound(`Attestation ${uid}`);
      // its revocation is the status list's to say: the credential itself may be cached as long as anyone likes
      return vcJwt(await issuer.sign(attestationCredential(row, context)), 'public, max-age=300');
    },

    async statusList(list) {
      const revoked = await revokedInList(db, list);
      if (revoked === null) throw notFound(`Status list ${list}`);
      const credential = statusListCredential(list, encodeStatusList(revoked), context, new Date(clock.now()));
      return vcJwt(await issuer.sign(credential), `public, max-age=${STATUS_LIST_TTL_SECONDS}`);
    },

    async jwks() {
      return { keys: await issuer.publicKeys() };
    },

    async didDocument() {
      const keys = await issuer.publicKeys();
      return {
        '@context': DID_CONTEXT,
        id: issuer.did,
        verificationMethod: keys.map((jwk) => ({
          id: jwk.kid,
          type: 'JsonWebKey2020',
          controller: issuer.did,
          publicKeyJwk: jwk,
        })),
        assertionMethod: keys.map((jwk) => jwk.kid),
      };
    },
  };
}
