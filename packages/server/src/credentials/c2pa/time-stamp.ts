import { createHash, randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { TimeStamper } from './cose.ts';

const SHA256_OID = '2.16.840.1.101.3.4.2.1';
/** How long one time-stamp request may take before the signing fails (a TSA is a network call in the signature). */
const TSA_TIMEOUT_MS = 10_000;

/** The time-stamping authority did not give a token: the signing is retried later, not refused. */
export class TimeStampUnavailable extends Error {
  override name = 'TimeStampUnavailable';
}

/**
 * An RFC 3161 client: a request over the SHA-256 of the data with a nonce, asking for the TSA's certificate in the
 * token (a verifier needs it), POSTed as application/timestamp-query; the token is checked for the same imprint and
 * nonce before it is used.
 */
export function tsaClient(url: string): TimeStamper {
  return async (data) => {
    const digest = createHash('sha256').update(data).digest();
    const nonce = randomBytes(8);
    nonce[0] = (nonce[0]! & 0x7f) | 0x40; // a positive INTEGER whose DER form is these 8 bytes
    const request = new pkijs.TimeStampReq({
      version: 1,
      messageImprint: new pkijs.MessageImprint({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256_OID }),
        hashedMessage: new asn1js.OctetString({ valueHex: digest }),
      }),
      nonce: new asn1js.Integer({ valueHex: nonce }),
      certReq: true,
    });
    let answer: Response;
    try {
      answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' },
        body: request.toSchema().toBER(),
        signal: AbortSignal.timeout(TSA_TIMEOUT_MS),
      });
    } catch (error) {
      throw new TimeStampUnavailable(`the time-stamping authority could not be reached (${(error as Error).name})`);
    }
    if (!answer.ok) throw new TimeStampUnavailable(`the time-stamping authority answered ${answer.status}`);
    return tokenOf(await answer.arrayBuffer(), digest, nonce);
  };
}

/** The token of a granted response, once its imprint and nonce are the ones asked for. */
function tokenOf(body: ArrayBuffer, digest: Buffer, nonce: Buffer): Uint8Array {
  let response: pkijs.TimeStampResp;
  try {
    response = pkijs.TimeStampResp.fromBER(body);
  } catch {
    throw new TimeStampUnavailable('the time-stamping authority answered something other than a time-stamp response');
  }
  // 0 granted, 1 granted with modifications; anything else is a refusal
  const status = response.status.status;
  if ((status !== 0 && status !== 1) || !response.timeStampToken)
    throw new TimeStampUnavailable(`the time-stamping authority refused the request (status ${status})`);
  const signed = new pkijs.SignedData({ schema: response.timeStampToken.content });
  const content = signed.encapContentInfo.eContent?.getValue();
  if (!content) throw new TimeStampUnavailable('the time-stamp token holds no TSTInfo');
  const info = pkijs.TSTInfo.fromBER(content);
  const imprint = Buffer.from(info.messageImprint.hashedMessage.valueBlock.valueHexView);
  const echoed = info.nonce ? Buffer.from(info.nonce.valueBlock.valueHexView) : undefined;
  if (!imprint.equals(digest) || !echoed || !stripZeros(echoed).equals(stripZeros(nonce)))
    throw new TimeStampUnavailable('the time-stamp token is not for this request (imprint or nonce differs)');
  return new Uint8Array(response.timeStampToken.toSchema().toBER());
}

const stripZeros = (bytes: Buffer) => bytes.subarray(bytes.findIndex((b) => b !== 0));
