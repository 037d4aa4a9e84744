import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy in front of a local port: an RPC endpoint of its own that a test can kill mid-traffic. */
export interface TcpProxy {
  url: string;
  /** Connections it accepted so far. */
  connections(): number;
  /** Bytes it carried from clients upstream so far. */
  bytesUp(): number;
  /** How many JSON-RPC requests of this method it carried (spotted in the bytes it passed on). */
  calls(method: string): number;
  /** Stops listening and cuts every connection at once (requests in flight die mid-way). */
  kill(): Promise<void>;
}

/** Listens on `port` (default: a free one), e.g. the port of a proxy killed before: the endpoint comes back. */
export async function startTcpProxy(targetPort: number, port = 0): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let up = 0;
  const methods = new Map<string, number>();
  const server = createServer((client) => {
    accepted++;
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => (sockets.delete(socket), client.destroy(), upstream.destroy()));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      up += chunk.length;
      for (const [, method] of chunk.toString().matchAll(/"method":"([A-Za-z_]+)"/g))
        methods.set(method!, (methods.get(method!) ?? 0) + 1);
    });
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    connections: () => accepted,
    bytesUp: () => up,
    calls: (method) => methods.get(method) ?? 0,
    kill: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
