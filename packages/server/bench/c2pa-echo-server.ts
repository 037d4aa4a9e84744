// The transport baseline of the Content Credentials bench: a bare node:http server that answers each POST with the
// bytes it was sent (read whole, then written back), as the route does around its signing.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    res.writeHead(200, {
      'content-type': req.headers['content-type'] ?? 'application/octet-stream',
      'content-length': body.length,
    });
    res.end(body);
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
});
