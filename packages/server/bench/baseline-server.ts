// The baseline of every HTTP figure: a bare node:http handler answering a fixed JSON body.
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'ok', uid: `0x${'ab'.repeat(32)}` });
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
