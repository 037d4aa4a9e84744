import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/clock.ts';

export interface Received {
  /** When it arrived, on the service's clock (a test's manual clock, or real time). */
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  body?: string;
  /** Sleep this long before answering (a slow or hanging receiver). */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback that records every request and answers as `answer` says. */
export async function startReceiver(
  answer: (request: Received, index: number) => Answer = () => ({ status: 200 }),
  clock: Clock = { now: () => Date.now() },
): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = { at: clock.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      for (const wake of waiters.splice(0)) wake();
      const { status, body, delayMs } = answer(request, received.length - 1);
      const reply = () => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end(body ?? '');
      };
      if (delayMs) setTimeout(reply, delayMs).unref();
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100).unref();
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
