// Revoke: the relayer signs the revocation for you (EAS.revoke on-chain, EAS.revokeOffchain for off-chain ones).
//   ATTESTATION_API_URL=http://127.0.0.1:8080 ATTESTATION_API_KEY=svc_pro_… ./dev example revoke [UID]
import { createClient, isServiceError } from '@attestation-service/client';

const client = createClient({
  baseUrl: process.env.ATTESTATION_API_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.ATTESTATION_API_KEY,
});

try {
  // without a uid, make one to revoke
  const uid =
    process.argv[2] ??
    (
      await client.attestations.create({
        type: 'human',
        content: `to be revoked ${Date.now()}`,
        contentType: 'text/plain',
      })
    ).uid;
  const result = await client.attestations.revoke(uid, { reason: 'published by mistake' });
  console.log(`revoked ${result.uid} at ${result.revokedAt} in transaction ${result.txHash}`);
  const record = await client.attestations.get(uid);
  console.log(`the record now says revoked: ${record.revoked}`);
} catch (error) {
  if (isServiceError(error, 'ALREADY_REVOKED')) console.error('already revoked');
  else if (isServiceError(error)) console.error(`${error.status} ${error.code}: ${error.message}`);
  process.exit(1);
}
