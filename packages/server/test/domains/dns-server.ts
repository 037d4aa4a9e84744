import { createSocket } from 'node:dgram';

/**
 * A DNS server on 127.0.0.1 that answers TXT questions from a table (name → records) and NXDOMAIN otherwise: enough
 * for node:dns's resolveTxt, so the domain proofs are tested through a real resolver without the network.
 */
export async function startTxtServer(): Promise<{
  server: string;
  records: Map<string, string[]>;
  stop: () => Promise<void>;
}> {
  const records = new Map<string, string[]>();
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    // the question: length-prefixed labels from byte 12, a zero, then its type and class
    const labels: string[] = [];
    let at = 12;
    while (query[at]! > 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString('latin1'));
      at += 1 + query[at]!;
    }
    const questionEnd = at + 5;
    const type = query.readUInt16BE(at + 1);
    const texts = type === 16 ? records.get(labels.join('.').toLowerCase()) : undefined;
    const answers = (texts ?? []).map((text) => {
      const data = Buffer.concat([Buffer.from([Buffer.byteLength(text)]), Buffer.from(text)]);
      const head = Buffer.alloc(12);
      head.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      head.writeUInt16BE(16, 2); // TXT
      head.writeUInt16BE(1, 4); // IN
      head.writeUInt32BE(60, 6);
      head.writeUInt16BE(data.length, 10);
      return Buffer.concat([head, data]);
    });
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(texts ? 0x8580 : 0x8583, 2); // a response, authoritative; NXDOMAIN when the name is unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, query.subarray(12, questionEnd), ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    records,
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
