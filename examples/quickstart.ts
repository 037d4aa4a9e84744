// SDK quick start: create an off-chain attestation, read it back, find it by content hash.
//   ATTESTATION_API_URL=http://127.0.0.1:8080 ATTESTATION_API_KEY=svc_free_… ./dev example quickstart [CONTENT]
import { createHash } from 'node:crypto';
import { createClient, isServiceError } from '@attestation-service/client';

const client = createClient({
  baseUrl: process.env.ATTESTATION_API_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.ATTESTATION_API_KEY,
});

const content = process.argv[2] ?? 'A poem I wrote myself.';

try {
  // off-chain: signed by the service (EIP-712, EAS-compatible), free at every tier
  const created = await client.attestations.create({
    type: 'human',
    content,
    contentType: 'text/plain',
    mode: 'offchain',
  });
  console.log(`created ${created.uid}`);
  console.log(`verify at ${created.verifyUrl}`);

  const record = await client.attestations.get(created.uid);
  console.log(
    `read back: ${record.type}, ${record.mode}, content hash ${record.contentHash}, signed by ${record.attester}`,
  );

  // anyone holding the content can find its attestations by its SHA-256
  const hash = createHash('sha256').update(content).digest('hex');
  const page = await client.attestations.search({ hash });
  console.log(`search found ${page.data.length} attestation(s) of this content; newest ${page.data[0]?.uid}`);
} catch (error) {
  if (isServiceError(error)) {
    console.error(`${error.status} ${error.code}: ${error.message}`, error.details);
    process.exit(1);
  }
  throw error;
}
