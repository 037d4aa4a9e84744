// Baseline for the audit export bench: the same rows as CSV straight from PostgreSQL's COPY ... TO STDOUT, piped
// into the HTTP response with no per-row JavaScript. What streaming an export can cost at the least.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const account = new URL(req.url ?? '/', 'http://x').searchParams.get('account') ?? '';
  if (!UUID.test(account)) return void res.writeHead(400).end();
  const client = await pool.connect();
  try {
    res.writeHead(200, { 'content-type': 'text/csv' });
    const copy = client.query(
      copyTo(`COPY (SELECT id, account_id, at, action, actor_key_prefix, resource, outcome, ip, request_id, details, prev_hash, hash
               FROM audit_entries WHERE account_id = '${account}' ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)`),
    );
    await pipeline(copy, res);
  } catch {
    res.destroy();
  } finally {
    client.release();
  }
}

const server = createServer((req, res) => {
  handle(req, res).catch(() => res.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`);
});
