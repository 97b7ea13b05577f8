import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError, errorBodyOf, invalidInput } from '#warden/kernel';

/**
 * Node's HTTP parser refuses some requests before Fastify has a request to route: headers past
 * Node's 16 KiB (`--max-http-header-size`), a request not sent within its timeout, bytes that are
 * not HTTP. Fastify's own answer to these has another body and no `X-Request-Id`; this one is the
 * error body every other answer has (docs/api.md, "Errors"), with a request id made for it, as the
 * OpenAPI document promises for every response. Installed as Fastify's `clientErrorHandler`.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer (Node's own handler does the same).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Not when the request at hand was answered already: one answered early (a 401 before its body
  // was read, a 413) whose upload then ran out of time got a second answer, a 408 written after
  // the first. Node's own handler checks the same (the socket's current response).
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && answering?.headersSent !== true) {
    const refusal = refusalOf(error.code);
    const requestId = randomUUID();
    const body = JSON.stringify(errorBodyOf(refusal, requestId));
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** The refusal for a parser error code (llhttp's `HPE_*`, Node's `ERR_HTTP_*`). */
function refusalOf(code: string | undefined): DomainError {
  if (code === 'HPE_HEADER_OVERFLOW')
    return new DomainError('request-header-fields-too-large', [
      { title: 'Request header fields too large', detail: 'The request line and headers are over 16 KiB together' },
    ]);
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new DomainError('request-timeout', [{ title: 'Request timeout', detail: 'The request was not received in time' }]);
  return invalidInput({ title: 'Malformed HTTP request', detail: 'The request is not well-formed HTTP/1.1' });
}
