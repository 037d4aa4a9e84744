// The export pipeline alone, as the API runs it (keyset pages → serialize → sendStreamed with backpressure), in a
// process without the rest of the API's modules: what the export itself holds in memory. Bench only (no auth).
import { createServer } from 'node:http';
import { AuditExport, keysetPages } from '../src/audit/export.ts';
import { sendStreamed } from '../src/http/streamed.ts';
import { createDatabase } from '../src/db/database.ts';
import { createPool } from '../src/db/sql.ts';

const db = createDatabase(createPool(process.env.DATABASE_URL!, 4));

const server = createServer((req, res) => {
  const params = new URL(req.url ?? '/', 'http://x').searchParams;
  const format = params.get('format') === 'json' ? 'json' : 'csv';
  const query = {
    accountId: params.get('account') ?? '',
    from: new Date(Date.now() - 30 * 86_400_000),
    to: new Date(),
    action: undefined,
  };
  const exp = new AuditExport({ format, filename: `bench.${format}`, pages: keysetPages(db, query) });
  sendStreamed(req, res, exp, {}).catch(() => res.destroy());
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`);
});
