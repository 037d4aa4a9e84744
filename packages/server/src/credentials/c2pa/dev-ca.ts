import 'reflect-metadata'; // @peculiar/x509's dependency injection needs it before the library loads
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** The development CA's common name: a chain under it is refused in production (identity.ts). */
export const DEVELOPMENT_CA_NAME = 'Attestation Service development CA (not for production)';

const ES256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

/** ISO/IEC 18013 and RFC 9336: id-kp-documentSigning; with emailProtection, the EKUs c2pa-rs accepts by default. */
const DOCUMENT_SIGNING = '1.3.6.1.5.5.7.3.36';
const EMAIL_PROTECTION = '1.3.6.1.5.5.7.3.4';

interface PemChain {
  /** The signer's private key, PKCS #8 PEM. */
  keyPem: string;
  /** The signer's certificate, then the CA's, PEM. */
  chainPem: string;
}

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

/**
 * A CA and a claim-signing leaf under it (ES256), as c2pa-rs's certificate profile wants a signer: not self-signed,
 * digitalSignature only, an accepted EKU, key identifiers both ways. The CA's key is dropped: nothing signs under it
 * again, and a new chain is a new CA. `name` is the CA's common name (the default marks it as development).
 */
export async function makeSigningChain(
  opts: { caName?: string; signerName?: string; validDays?: number; now?: Date } = {},
): Promise<PemChain> {
  const notBefore = new Date((opts.now ?? new Date()).getTime() - DAY_MS); // a clock a little behind still accepts it
  const notAfter = new Date(notBefore.getTime() + (opts.validDays ?? 3 * 365) * DAY_MS);
  const caKeys = await webcrypto.subtle.generateKey(ES256, false, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: [{ CN: [opts.caName ?? DEVELOPMENT_CA_NAME] }, { O: ['Attestation Service'] }],
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ES256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = await webcrypto.subtle.generateKey(ES256, true, ['sign', 'verify']);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: [{ CN: [opts.signerName ?? 'Attestation Service content credentials'] }, { O: ['Attestation Service'] }],
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ES256,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([DOCUMENT_SIGNING, EMAIL_PROTECTION], false),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
    chainPem: `${leaf.toString('pem')}\n${ca.toString('pem')}\n`,
  };
}
