// The same-work baselines of the read, search and create rows: node:http and a `pg` pool of the service's size, one
// query (or one transaction) per request, no framework, no batching, no auth or limits. It reads and writes the
// service's own tables, so each row of BENCHMARKS.md compares the same work on the same database.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { CompactSign } from 'jose';
import pg from 'pg';
import { bytesToHex, type Hex } from 'viem';
import { createOffchainSigner } from '../src/attestations/offchain.ts';
import { encodeAttestationData, SCHEMA_UID } from '@attestation-service/protocol';
import { entryHash } from '../src/audit/chain.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 14) });
const COLUMNS = `uid, type, mode, content_hash, content_type, chain_id, schema_uid, attester, tx_hash, block_number,
  offchain, created_at, revoked_at, revocation_tx_hash`;
const signer = createOffchainSigner({
  privateKey: `0x${randomBytes(32).toString('hex')}` as Hex,
  domain: { name: 'EAS Attestation', version: '1.4.0', chainId: 31337, verifyingContract: `0x${'42'.repeat(20)}` },
  schemaUid: SCHEMA_UID,
});
// the account and key a create is charged to, by the key's prefix in its Authorization header: known up front, so
// the plain handler pays no query for it (the service authenticates; this does not)
const { rows: keys } = await pool.query<{ id: string; account_id: string; prefix: string }>(
  'SELECT id, account_id, prefix FROM api_keys',
);
const owners = new Map(keys.map((key) => [key.prefix, key]));

function send(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function create(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const owner =
    owners.get(/^Bearer svc_\w+?_([0-9a-f]{12})_/.exec(req.headers.authorization ?? '')?.[1] ?? '') ?? keys[0]!;
  const input = JSON.parse(await readBody(req)) as { type: 'human' | 'ai'; content: string; contentType: string };
  const contentHash = `0x${createHash('sha256').update(input.content, 'utf8').digest('hex')}` as Hex;
  const now = new Date();
  const signed = signer.sign(encodeAttestationData(contentHash, input.type), Math.floor(now.getTime() / 1000));
  const uid = signed.sig.uid;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const head = await client.query<{ head_hash: string }>(
      `INSERT INTO audit_chains (account_id, head_hash, length) VALUES ($1, $2, 0)
       ON CONFLICT (account_id) DO UPDATE SET length = audit_chains.length RETURNING head_hash`,
      [owner.account_id, '0'.repeat(64)],
    );
    await client.query(
      `INSERT INTO attestations (uid, account_id, api_key_id, type, mode, status, content_hash, content_type, chain_id,
         schema_uid, attester, offchain, created_at) VALUES ($1, $2, $3, $4, 'offchain', 'confirmed', $5, $6, 31337, $7, $8, $9, $10)`,
      [
        uid,
        owner.account_id,
        owner.id,
        input.type,
        contentHash,
        input.contentType,
        SCHEMA_UID,
        signer.address,
        signed,
        now,
      ],
    );
    const entry = {
      accountId: owner.account_id,
      at: now,
      action: 'attestation.created',
      actorKeyPrefix: owner.prefix,
      resource: `attestation:${uid}`,
      outcome: 'success' as const,
      ip: req.socket.remoteAddress ?? null,
      requestId: bytesToHex(randomBytes(8)),
      details: { mode: 'offchain', type: input.type },
    };
    const hash = entryHash(head.rows[0]!.head_hash, entry);
    await client.query(
      `INSERT INTO audit_entries (account_id, at, action, actor_key_prefix, resource, outcome, ip, request_id, details,
         prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        entry.accountId,
        entry.at,
        entry.action,
        entry.actorKeyPrefix,
        entry.resource,
        entry.outcome,
        entry.ip,
        entry.requestId,
        entry.details,
        head.rows[0]!.head_hash,
        hash,
      ],
    );
    await client.query('UPDATE audit_chains SET head_hash = $2, length = length + 1 WHERE account_id = $1', [
      owner.account_id,
      hash,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  send(res, 201, { uid, txHash: null, verifyUrl: `http://localhost:8081/${uid}`, mode: 'offchain', offchain: signed });
}

const credentialKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

/** The credential row's baseline: the row by uid, the same VC 2.0 built from it and signed as a vc+jwt (ES256). */
async function credential(res: ServerResponse, uid: string): Promise<void> {
  const { rows } = await pool.query(`SELECT id, ${COLUMNS}, digital_source_type FROM attestations WHERE uid = $1`, [
    uid,
  ]);
  const row = rows[0];
  if (!row) return send(res, 404, { code: 'NOT_FOUND' });
  const list = BigInt(row.id) / 131_072n;
  const index = String(BigInt(row.id) % 131_072n);
  const listUrl = `http://localhost:8080/v1/status-lists/${list}`;
  const vc = {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    id: `http://localhost:8080/v1/attestations/${uid}/credential`,
    type: ['VerifiableCredential', 'ContentOriginCredential'],
    issuer: 'did:web:localhost%3A8080',
    validFrom: row.created_at.toISOString(),
    credentialSubject: {
      id: `urn:sha256:${row.content_hash.slice(2)}`,
      contentHash: row.content_hash,
      contentType: row.content_type,
      origin: row.type,
      digitalSourceType: `http://cv.iptc.org/newscodes/digitalsourcetype/${row.digital_source_type ?? 'digitalCreation'}`,
      attester: row.attester,
      claimant: { kind: 'service' },
      eas: {
        uid,
        mode: row.mode,
        chainId: row.chain_id,
        contract: `0x${'42'.repeat(20)}`,
        schema: row.schema_uid,
        txHash: row.tx_hash,
      },
      verifyUrl: `http://localhost:8081/${uid}`,
    },
    credentialStatus: {
      id: `${listUrl}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: index,
      statusListCredential: listUrl,
    },
  };
  const jwt = await new CompactSign(Buffer.from(JSON.stringify(vc)))
    .setProtectedHeader({ alg: 'ES256', typ: 'vc+jwt', cty: 'vc', kid: 'did:web:localhost%3A8080#key-1' })
    .sign(credentialKey);
  res.writeHead(200, { 'content-type': 'application/vc+jwt', 'content-length': Buffer.byteLength(jwt) });
  res.end(jwt);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  if (req.method === 'POST' && url.pathname === '/v1/attestations') return create(req, res);
  const asked = /^\/v1\/attestations\/([^/]+)\/credential$/.exec(url.pathname);
  if (asked) return credential(res, asked[1]!);
  if (url.pathname === '/v1/attestations') {
    const { rows } = await pool.query(
      `SELECT ${COLUMNS} FROM attestations WHERE content_hash = $1 ORDER BY id DESC LIMIT 21`,
      [url.searchParams.get('hash')],
    );
    return send(res, 200, { data: rows.slice(0, 20), nextCursor: null });
  }
  const { rows } = await pool.query(`SELECT ${COLUMNS} FROM attestations WHERE uid = $1`, [
    url.pathname.slice('/v1/attestations/'.length),
  ]);
  if (rows.length === 0) return send(res, 404, { code: 'NOT_FOUND' });
  send(res, 200, rows[0]);
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => send(res, 500, { code: 'INTERNAL_ERROR' }));
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () =>
  server.close(() => {
    pool.end().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  }),
);
