// Batch: up to 100 attestations in one request; every on-chain item goes into ONE multiAttest transaction.
//   ATTESTATION_API_URL=http://127.0.0.1:8080 ATTESTATION_API_KEY=svc_pro_… ./dev example batch [RUN_LABEL]
import { createClient, isServiceError } from '@attestation-service/client';

const client = createClient({
  baseUrl: process.env.ATTESTATION_API_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.ATTESTATION_API_KEY,
});
const run = process.argv[2] ?? String(Date.now());

try {
  const batch = await client.attestations.batch({
    attestations: [
      { type: 'human', content: `chapter 1 (${run})`, contentType: 'text/plain' },
      { type: 'human', content: `chapter 2 (${run})`, contentType: 'text/plain' },
      { type: 'ai', content: `cover image prompt (${run})`, contentType: 'text/plain', mode: 'offchain' },
    ],
  });
  console.log(
    `batch ${batch.batchId}: ${batch.attestations.length} attestations, on-chain ones in transaction ${batch.txHash}`,
  );
  for (const a of batch.attestations) console.log(`  ${a.mode.padEnd(8)} ${a.uid}`);
} catch (error) {
  if (isServiceError(error, 'QUOTA_EXCEEDED'))
    console.error(
      `quota: ${error.details.used}/${error.details.limit}, resets ${new Date(error.details.resetsAt).toISOString()}`,
    );
  else if (isServiceError(error)) console.error(`${error.status} ${error.code}: ${error.message}`);
  process.exit(1);
}
