import { compactVerify, createLocalJWKSet, errors, type JSONWebKeySet } from 'jose';
import { CouldNotFetch, type CredentialSource } from './credential-source.ts';

/** A document the API served that does not hold: its signature, its header or its shape. */
export class Unsound extends Error {
  override readonly name = 'Unsound';
}

interface VerifiedVc {
  payload: Record<string, unknown>;
  /** The key that signed it (`did:web:…#key-…`). */
  kid: string;
}

/** The resolver of each JWKS read, kept with it: jose imports each key once per resolver. */
const resolvers = new WeakMap<JSONWebKeySet, ReturnType<typeof createLocalJWKSet>>();

function resolverOf(jwks: JSONWebKeySet) {
  let resolver = resolvers.get(jwks);
  if (!resolver) resolvers.set(jwks, (resolver = createLocalJWKSet(jwks)));
  return resolver;
}

/**
 * A compact JWS as W3C's "Securing VCs using JOSE and COSE" has it (`typ: vc+jwt`, ES256, a `kid`), checked against
 * the keys the API publishes: a key it does not list yet re-reads the JWKS once (a rotation since). Throws Unsound,
 * or CouldNotFetch when the keys cannot be read.
 */
export async function verifyVcJwt(jws: string, source: Pick<CredentialSource, 'jwks'>): Promise<VerifiedVc> {
  const attempt = async (fresh: boolean) =>
    compactVerify(jws, resolverOf(await source.jwks(fresh)), { algorithms: ['ES256'] });
  let verified: Awaited<ReturnType<typeof attempt>>;
  try {
    verified = await attempt(false).catch((error: unknown) => {
      if (error instanceof errors.JWKSNoMatchingKey) return attempt(true);
      throw error;
    });
  } catch (error) {
    if (error instanceof CouldNotFetch) throw error;
    const why = error instanceof errors.JWKSNoMatchingKey ? 'no key the API publishes signed it' : String(error);
    throw new Unsound(`its signature does not verify against the API's keys: ${why}`);
  }
  const { protectedHeader, payload } = verified;
  if (protectedHeader.typ !== 'vc+jwt') throw new Unsound(`its header says typ ${protectedHeader.typ}, not vc+jwt`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw new Unsound('its payload is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Unsound('its payload is not a credential');
  return { payload: parsed as Record<string, unknown>, kid: protectedHeader.kid ?? '' };
}
