import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { edgeErrorBody } from './edge-errors';
import { surfaceOf } from './path-guard';

/** What Node's HTTP parser refuses, by its error code: the status of the answer. */
const STATUS_OF: Record<string, number> = {
  // Request line and headers past the server's 16 KiB (Node's `maxHeaderSize`).
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

const MESSAGE_OF: Record<number, string> = {
  431: 'the request line and headers exceed 16 KiB; send large values in the body (an OAuth request object by /par)',
  408: 'the request did not arrive in time',
  400: 'the request could not be parsed as HTTP',
};

/** The path of the request line in the bytes the parser had ("GET /v1/x?… HTTP/1.1"), for the interface's shape. */
function pathOf(raw: Buffer | undefined): string {
  const line = raw?.subarray(0, 2048).toString('latin1').split('\r\n', 1)[0] ?? '';
  const target = line.split(' ')[1] ?? '/';
  return target.startsWith('/') ? (target.split('?', 1)[0] ?? '/') : '/';
}

/**
 * Requests Node's HTTP parser refuses before any route sees them (a request line and headers past
 * 16 KiB, a request that is not HTTP, one that did not arrive in time) get their interface's error
 * shape as JSON, like every other refusal, instead of Node's bare status line with no body and no
 * Content-Type; the connection is then closed, as Node closes it.
 */
export function answerParseErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = STATUS_OF[err.code ?? ''] ?? 400;
    const body = JSON.stringify(
      edgeErrorBody(surfaceOf(pathOf(err.rawPacket)), {
        status,
        code: 'invalid_request',
        message: MESSAGE_OF[status] ?? MESSAGE_OF[400]!,
      }),
    );
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
