import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A response body a procedure returns to be streamed (the audit export is one): the REST layer writes its chunks as
 * they come instead of JSON-encoding it. Declared here, so the HTTP layer needs to know no feature that streams.
 */
export abstract class StreamedBody {
  abstract readonly contentType: string;
  /** The download's name (Content-Disposition). */
  abstract readonly filename: string;
  /** The body, piece by piece; nothing is read before the first piece is asked for. */
  abstract chunks(): AsyncGenerator<string>;
}

/** Resolves when the response can take more (or has closed, so the writer stops). */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve(); // 'close' has fired already: waiting for it would never end
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Streams a body as the response, piece by piece, waiting for 'drain' whenever the socket's buffer is full,
 * so memory stays at about a page whatever the size. The first page is read before the status line: a failure
 * there is thrown to the caller and answered with the normal error body. A failure after the first byte cannot
 * change the status any more; it is thrown too, and the caller aborts the connection (the body then lacks its
 * end: no closing `]`, no final chunk), which every HTTP client reports as an error.
 */
export async function sendStreamed(
  req: IncomingMessage,
  res: ServerResponse,
  exp: StreamedBody,
  headers: Record<string, string>,
): Promise<void> {
  const chunks = exp.chunks();
  try {
    let step = await chunks.next();
    res.statusCode = 200;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('Content-Type', exp.contentType);
    res.setHeader('Content-Disposition', `attachment; filename="${exp.filename}"`);
    res.setHeader('Cache-Control', 'no-store');
    if (req.method === 'HEAD') return void res.end();
    while (!step.done) {
      if (res.destroyed) return; // the client went away: stop reading pages
      if (!res.write(step.value)) await drained(res);
      step = await chunks.next();
    }
    res.end();
  } finally {
    await chunks.return(undefined);
  }
}
