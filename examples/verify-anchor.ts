// Check, without trusting the service, when an off-chain attestation existed: its Merkle proof against the anchored
// root, and the root's timestamp on the chain (EAS.getTimestamp), read from your own RPC.
//   CHAIN_RPC_URL=https://mainnet.base.org ./dev example verify-anchor UID     (or ATTESTATION_UID=0x… instead of UID)
// EAS_ADDRESS names the EAS contract on chains other than Base and Optimism; ATTESTATION_API_URL as for the others.
import { createClient, isServiceError, verifyAnchor } from '@attestation-service/client';

const uid = process.argv[2] ?? process.env.ATTESTATION_UID;
const rpcUrl = process.env.CHAIN_RPC_URL;
if (!uid || !rpcUrl) {
  console.error('usage: CHAIN_RPC_URL=<your RPC of the chain> ./dev example verify-anchor UID');
  process.exit(2);
}

// reading a record is public: no API key needed
const client = createClient({ baseUrl: process.env.ATTESTATION_API_URL ?? 'http://127.0.0.1:8080' });

try {
  const record = await client.attestations.get(uid);
  if (record.mode === 'onchain') {
    console.log(`${uid} is an on-chain attestation: its own transaction ${record.txHash} dates it, no anchor needed`);
    process.exit(0);
  }
  const result = await verifyAnchor(record, { rpcUrl, easAddress: process.env.EAS_ADDRESS });
  if (result.valid) {
    console.log(`${uid} existed by ${result.existedBy.toISOString()}`);
    console.log(`  root ${result.root}, timestamped in transaction ${result.txHash} (block ${result.blockNumber})`);
  } else if (result.reason === 'not_anchored') {
    // the service anchors new off-chain attestations every ANCHOR_INTERVAL (60 s by default)
    console.log(`${uid}: not anchored yet; try again in a minute or two`);
  } else {
    console.error(`${uid}: the anchor does not hold (${result.reason}): ${result.message}`);
    process.exit(1);
  }
} catch (error) {
  if (isServiceError(error)) {
    console.error(`${error.status} ${error.code}: ${error.message}`);
    process.exit(1);
  }
  // no EAS address known for this chain (set EAS_ADDRESS), or the RPC did not answer: no verdict either way
  if (error instanceof Error && error.message.startsWith('verifyAnchor:')) {
    console.error(/easAddress/.test(error.message) ? `${error.message}: set EAS_ADDRESS` : error.message);
    process.exit(1);
  }
  throw error;
}
