import type pg from 'pg';

/**
 * Copies one real attestation (`sampleUid`, made through the API so its signed package is real) into `count` rows with
 * new uids, a third of them AI, over `distinctHashes` content hashes, dated a second apart: reads then return
 * realistic bodies. Analyzes the table after.
 */
export async function seedAttestations(
  db: Pick<pg.Client, 'query'>,
  sampleUid: string,
  count: number,
  distinctHashes: number,
): Promise<void> {
  await db.query(
    `INSERT INTO attestations (uid, account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id, schema_uid, attester, offchain, created_at)
     SELECT '0x' || encode(sha256(('uid' || g)::bytea), 'hex'), a.account_id, a.api_key_id, CASE WHEN g % 3 = 0 THEN 'ai' ELSE 'human' END, 'offchain', 'confirmed',
            '0x' || encode(sha256(('content' || (g % ${distinctHashes}))::bytea), 'hex'), 'text/plain', a.chain_id, a.schema_uid, a.attester, a.offchain, now() - g * interval '1 second'
     FROM generate_series(1, ${count}) g, (SELECT * FROM attestations WHERE uid = $1) a`,
    [sampleUid],
  );
  await db.query('ANALYZE attestations');
}

/** One off-chain attestation made through the API with `key`: the sample the seeded rows copy. */
export async function sampleAttestation(base: string, key: string): Promise<string> {
  const res = await fetch(`${base}/v1/attestations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'human', content: 'seed', contentType: 'text/plain', mode: 'offchain' }),
  });
  return ((await res.json()) as { uid: string }).uid;
}
