import { createPrivateKey, generateKeyPairSync, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import { CompactSign } from 'jose';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../system/sealer.ts';
import { insertKey, liveKeys, retireKey, type StoredCredentialKey } from './key-store.ts';

/** The media type (and JOSE `typ`) of a credential secured as W3C's "Securing VCs using JOSE and COSE" defines. */
const VC_JWT = 'vc+jwt';
export const VC_JWT_MEDIA_TYPE = `application/${VC_JWT}`;

/** A published key, as JWKS and the DID document list it. */
export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

export interface CredentialIssuer {
  /** The issuer's identifier: `did:web` of PUBLIC_BASE_URL, whose DID document is served at /.well-known/did.json. */
  readonly did: string;
  /** A compact JWS of the credential: header `typ: vc+jwt`, `cty: vc`, the signing key's `kid`. */
  sign(credential: Record<string, unknown>): Promise<string>;
  /** Every key not retired (a credential signed before a rotation still verifies). */
  publicKeys(): Promise<PublicJwk[]>;
  /** A new signing key; the previous ones stay published until retired. Returns its kid. */
  rotate(): Promise<string>;
  /** Unpublishes a key: credentials it signed verify no more. False when no live key has this kid. */
  retire(kid: string): Promise<boolean>;
}

/** `did:web` of a base URL: its host (a port's colon percent-encoded) and its path segments joined by colons. */
function didWebOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  const path = url.pathname.split('/').filter(Boolean).map(encodeURIComponent);
  return ['did:web', encodeURIComponent(url.host), ...path].join(':');
}

/** How long a process keeps the keys it read: a rotation elsewhere signs here within this time. */
const KEYS_TTL_MS = 30_000;

export function createCredentialIssuer(deps: {
  db: Db;
  clock: Clock;
  sealer: Sealer;
  publicBaseUrl: string;
}): CredentialIssuer {
  const { db, clock, sealer } = deps;
  const did = didWebOf(deps.publicBaseUrl);
  const fullKid = (kid: string) => `${did}#${kid}`;
  let cached: { at: number; keys: Promise<StoredCredentialKey[]> } | undefined;
  const privateKeys = new Map<string, KeyObject>();

  async function makeKey(): Promise<string> {
    const now = new Date(clock.now());
    const kid = `key-${now.toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(4).toString('hex')}`;
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await insertKey(
      db,
      {
        kid,
        publicJwk: publicKey.export({ format: 'jwk' }),
        privateJwkSealed: sealer.seal(JSON.stringify(privateKey.export({ format: 'jwk' }))),
      },
      now,
    );
    cached = undefined;
    return kid;
  }

  function keys(): Promise<StoredCredentialKey[]> {
    const now = clock.now();
    if (!cached || now - cached.at > KEYS_TTL_MS) {
      const read = (async () => {
        const live = await liveKeys(db);
        if (live.length > 0) return live;
        // the first credential of a new deployment: two processes racing make two keys, both published, both valid
        await makeKey();
        return liveKeys(db);
      })();
      cached = { at: now, keys: read };
      read.catch(() => (cached = undefined));
    }
    return cached.keys;
  }

  function privateKeyOf(key: StoredCredentialKey): KeyObject {
    let found = privateKeys.get(key.kid);
    if (!found) {
      const jwk = sealer.open(key.privateJwkSealed);
      if (jwk === undefined)
        throw new Error(`credential key ${key.kid} is sealed under neither SERVICE_SECRET nor SERVICE_SECRET_PREVIOUS`);
      found = createPrivateKey({ key: JSON.parse(jwk) as JsonWebKey, format: 'jwk' } as never);
      privateKeys.set(key.kid, found);
    }
    return found;
  }

  return {
    did,
    async sign(credential) {
      const [signing] = await keys();
      return new CompactSign(Buffer.from(JSON.stringify(credential)))
        .setProtectedHeader({ alg: 'ES256', typ: VC_JWT, cty: 'vc', kid: fullKid(signing!.kid) })
        .sign(privateKeyOf(signing!));
    },
    async publicKeys() {
      return (await keys()).map(({ kid, publicJwk: { kty, crv, x, y } }) => ({
        kty: kty!,
        crv: crv!,
        x: x!,
        y: y!,
        kid: fullKid(kid),
        alg: 'ES256',
        use: 'sig',
      }));
    },
    rotate: makeKey,
    async retire(kid) {
      const retired = await retireKey(
        db,
        kid.startsWith(`${did}#`) ? kid.slice(did.length + 1) : kid,
        new Date(clock.now()),
      );
      cached = undefined;
      return retired;
    },
  };
}
