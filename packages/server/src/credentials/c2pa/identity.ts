import 'reflect-metadata'; // @peculiar/x509's dependency injection needs it before the library loads
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { mkdir, readFile, unlink } from 'node:fs/promises';
import { createPrivateFileOnce, requirePrivate } from '../../system/private-file.ts';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { ConfigError, type Config } from '../../config.ts';
import { DEVELOPMENT_CA_NAME, makeSigningChain } from './dev-ca.ts';

/** Where a development service keeps its Content Credentials signer (key, then chain) when C2PA_SIGNING_CERT is unset. */
export const DEVELOPMENT_SIGNER_FILE = 'c2pa-development-signer.pem';

const FIX =
  'set C2PA_SIGNING_CERT and C2PA_SIGNING_KEY ' +
  '(docs/operations.md, "Content Credentials: certificates, time-stamping, rotation")';

/** The C2PA names of the algorithms a signer's key may have. */
export type SigningAlg = 'es256' | 'es384' | 'ed25519';

/** Who signs Content Credentials: what a signing worker needs, all of it cloneable to a worker thread. */
export interface SigningIdentity {
  alg: SigningAlg;
  /** DER certificates: the signer's first, then the CA chain (the root may be left out). */
  chain: Uint8Array[];
  /** The signer's private key, PKCS #8 PEM. */
  keyPem: string;
  /** An RFC 3161 time-stamping authority, asked for a token over each signature. */
  tsaUrl: string | undefined;
  /** Made by this service for development (DATA_DIR): untrusted anywhere. */
  development: boolean;
}

/**
 * C2PA_SIGNING_CERT and C2PA_SIGNING_KEY; unset, a ConfigError in a real deployment, and in development the chain
 * kept in DATA_DIR (made at the first start). A configured chain is checked against its key here, at boot.
 */
export async function loadSigningIdentity(config: Config): Promise<SigningIdentity> {
  const { certificateChain, signingKey, tsaUrl } = config.c2pa;
  if (certificateChain !== undefined && signingKey !== undefined) {
    const identity = parseIdentity(certificateChain, signingKey.reveal(), 'C2PA_SIGNING_CERT', tsaUrl);
    if (config.productionBecause && isDevelopmentChain(identity.chain))
      throw new ConfigError(
        `invalid configuration: C2PA_SIGNING_CERT is a development chain made by this service, refused when ${config.productionBecause}; ${FIX}`,
      );
    return identity;
  }
  if (config.productionBecause)
    throw new ConfigError(
      `C2PA_SIGNING_CERT and C2PA_SIGNING_KEY are required for Content Credentials when ${config.productionBecause}: ` +
        `a certificate whose key signs claims (digitalSignature, an EKU C2PA accepts); ${FIX}`,
    );
  const text = await dataDirSigner(config.dataDir);
  const path = join(config.dataDir, DEVELOPMENT_SIGNER_FILE);
  return { ...parseIdentity(text, text, path, tsaUrl), development: true };
}

function parseIdentity(chainPem: string, keyPem: string, source: string, tsaUrl: string | undefined): SigningIdentity {
  let chain: x509.X509Certificate[];
  let key: KeyObject;
  try {
    chain = x509.PemConverter.decodeWithHeaders(chainPem)
      .filter((block) => block.type === 'CERTIFICATE')
      .map((block) => new x509.X509Certificate(block.rawData));
    key = createPrivateKey(keyPem);
  } catch {
    throw new ConfigError(`invalid configuration: ${source} or its key is not readable PEM; ${FIX}`);
  }
  const signer = chain[0];
  if (!signer) throw new ConfigError(`invalid configuration: ${source} holds no certificate; ${FIX}`);
  const spki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  if (!Buffer.from(signer.publicKey.rawData).equals(spki))
    throw new ConfigError(
      `invalid configuration: the key does not belong to the first certificate of ${source}; ${FIX}`,
    );
  if (signer.notAfter.getTime() < Date.now())
    throw new ConfigError(
      `invalid configuration: the signing certificate of ${source} expired on ${signer.notAfter.toISOString()}`,
    );
  return {
    alg: algorithmOf(key, source),
    chain: chain.map((cert) => new Uint8Array(cert.rawData)),
    keyPem: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    tsaUrl,
    development: false,
  };
}

function algorithmOf(key: KeyObject, source: string): SigningAlg {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'ec' && curve === 'prime256v1') return 'es256';
  if (key.asymmetricKeyType === 'ec' && curve === 'secp384r1') return 'es384';
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  throw new ConfigError(`invalid configuration: the key of ${source} must be P-256, P-384 or Ed25519; ${FIX}`);
}

const isDevelopmentChain = (chain: Uint8Array[]) =>
  chain.some((der) => new x509.X509Certificate(der).issuer.includes(DEVELOPMENT_CA_NAME));

/** DATA_DIR's signer, made with mode 0600 if missing (or expired); one another user can read is refused. */
async function dataDirSigner(dataDir: string): Promise<string> {
  const path = join(dataDir, DEVELOPMENT_SIGNER_FILE);
  await mkdir(dataDir, { recursive: true });
  const existing = await readFile(path, 'utf8').catch(() => undefined);
  if (existing !== undefined && !expired(existing)) {
    await requirePrivate(path);
    return existing;
  }
  if (existing !== undefined) await unlink(path).catch(() => undefined);
  const { keyPem, chainPem } = await makeSigningChain();
  return createPrivateFileOnce(path, `${keyPem}\n${chainPem}`);
}

function expired(pem: string): boolean {
  const first = x509.PemConverter.decodeWithHeaders(pem).find((block) => block.type === 'CERTIFICATE');
  return first === undefined || new x509.X509Certificate(first.rawData).notAfter.getTime() < Date.now();
}
