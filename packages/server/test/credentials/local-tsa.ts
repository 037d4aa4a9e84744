import 'reflect-metadata';
import { createHash, webcrypto } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const ES256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TST_INFO = '1.2.840.113549.1.9.16.1.4';
const CONTENT_TYPE = '1.2.840.113549.1.9.3';
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';

/**
 * An RFC 3161 time-stamping authority on a loopback port, for tests: a CA and a TSA certificate of its own (EKU
 * timeStamping, critical), answering each request with a token over its imprint and nonce. `requests` counts them.
 */
export async function startLocalTsa(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  const { cert, key } = await tsaCertificate();
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests++;
      const request = pkijs.TimeStampReq.fromBER(new Uint8Array(Buffer.concat(chunks)));
      respond(request, cert, key).then(
        (body) => {
          res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
          res.end(Buffer.from(body));
        },
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function tsaCertificate(): Promise<{ cert: pkijs.Certificate; key: webcrypto.CryptoKey }> {
  const now = new Date(Date.now() - 86_400_000);
  const later = new Date(Date.now() + 86_400_000 * 30);
  const caKeys = await webcrypto.subtle.generateKey(ES256, false, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Test TSA CA',
    notBefore: now,
    notAfter: later,
    keys: caKeys,
    signingAlgorithm: ES256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const keys = await webcrypto.subtle.generateKey(ES256, false, ['sign', 'verify']);
  const tsa = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=Test TSA',
    issuer: ca.subject,
    notBefore: now,
    notAfter: later,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: ES256,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.timeStamping], true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  return { cert: pkijs.Certificate.fromBER(tsa.rawData), key: keys.privateKey as webcrypto.CryptoKey };
}

async function respond(
  request: pkijs.TimeStampReq,
  cert: pkijs.Certificate,
  key: webcrypto.CryptoKey,
): Promise<ArrayBuffer> {
  const info = new pkijs.TSTInfo({
    version: 1,
    policy: '1.2.3.4.1',
    messageImprint: request.messageImprint,
    serialNumber: new asn1js.Integer({ value: Date.now() % 1_000_000 }),
    genTime: new Date(Math.floor(Date.now() / 1000) * 1000), // whole seconds: DER's GeneralizedTime as c2pa-rs reads it
    ...(request.nonce ? { nonce: request.nonce } : {}),
  });
  const content = info.toSchema().toBER();
  const certHash = createHash('sha256').update(Buffer.from(cert.toSchema().toBER())).digest();
  // ESS signingCertificateV2: which certificate signed the token (SHA-256, the default, so no algorithm field)
  const essCertId = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({
        value: [new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: certHash })] })],
      }),
    ],
  });
  const signed = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: TST_INFO,
      eContent: new asn1js.OctetString({ valueHex: content }),
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: CONTENT_TYPE, values: [new asn1js.ObjectIdentifier({ value: TST_INFO })] }),
            new pkijs.Attribute({
              type: MESSAGE_DIGEST,
              values: [
                new asn1js.OctetString({ valueHex: createHash('sha256').update(Buffer.from(content)).digest() }),
              ],
            }),
            new pkijs.Attribute({ type: SIGNING_CERTIFICATE_V2, values: [essCertId] }),
          ],
        }),
      }),
    ],
    certificates: [cert],
  });
  // pkijs splits a primitive eContent into BER's constructed form; a TSA's token is DER, as c2pa-rs reads it
  signed.encapContentInfo.eContent = new asn1js.OctetString({ valueHex: content });
  await signed.sign(key, 0, 'SHA-256');
  const token = new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signed.toSchema(true) });
  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
    timeStampToken: token,
  });
  return response.toSchema().toBER();
}
