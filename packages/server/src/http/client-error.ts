import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, type ErrorCode } from '../errors.ts';

const ANSWERS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', 'The request headers are too large (16 KiB at most).'],
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'The request was not received in time.'],
};
const MALFORMED: [ErrorCode, string] = ['MALFORMED_REQUEST', 'The request is not well-formed HTTP.'];

/** The raw HTTP/1.1 answer to a request Node's parser refused, with the API's `{ code, message, details }` body. */
function clientErrorResponse(errorCode: string | undefined): string {
  const [code, message] = ANSWERS[errorCode ?? ''] ?? MALFORMED;
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ code, message, details: {} });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * The server's 'clientError' handler: Node answers these itself (431, 400, 408) with an empty body, before any
 * handler of ours runs. A socket that is gone or already mid-response is just closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || answering) return void socket.destroy();
  socket.end(clientErrorResponse(error.code));
}
