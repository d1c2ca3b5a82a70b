import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ApiError, catalogueError, ERROR_CATALOGUE, type ErrorCode, titleFor } from '../errors.ts';
import { LIMITS } from './limits.ts';

// Errors raised before a request reaches a route, which Fastify and Node would otherwise answer
// with their own non-JSON:API bodies: a path that does not percent-decode, an overlong path
// parameter (the router's errors), and what Node's HTTP parser refuses or times out on (a
// `clientError` on the socket: a malformed request line, headers too large, the request time-out).

function send(reply: FastifyReply, err: ApiError): void {
  reply
    .code(err.status)
    .headers(err.headers)
    .type('application/json; charset=utf-8')
    .send({ errors: err.errors });
}

/** Fastify's `frameworkErrors` option: router errors as JSON:API. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    send(
      reply,
      catalogueError('uri_too_long', `A path segment is longer than ${LIMITS.urlLength} characters.`),
    );
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    send(reply, catalogueError('invalid_encoding', 'The URL path is not valid percent-encoded UTF-8.'));
    return;
  }
  send(reply, catalogueError('bad_request', 'The request could not be routed.'));
}

const CLIENT_ERRORS: Record<string, { detail: string; code: ErrorCode }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    detail: 'The request headers and body did not arrive within the time allowed (REQUEST_TIMEOUT_MS).',
    code: 'request_timeout',
  },
  HPE_HEADER_OVERFLOW: {
    detail: 'The request line and headers are too large (at most 16 KiB).',
    code: 'headers_too_large',
  },
};

/** A JSON:API error written straight to the socket: there is no request object to answer through. */
export function clientErrorResponse(code: string | undefined): string {
  const e = CLIENT_ERRORS[code ?? ''] ?? {
    detail: 'The request is not valid HTTP/1.1.',
    code: 'bad_request',
  };
  // The status and its reason phrase come from the catalogue (also the JSON:API title).
  const status = ERROR_CATALOGUE[e.code].status;
  const title = titleFor(status);
  const body = JSON.stringify({
    errors: [{ status: String(status), title, detail: e.detail, code: e.code }],
  });
  return (
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Fastify's `clientErrorHandler` option (Node's `clientError` event). */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // A reset or closed socket has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Answer only when no response has started on this socket (as Node itself does).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) socket.write(clientErrorResponse(err.code));
  socket.destroy(err);
}

/**
 * While the server closes, requests still arriving on open connections get a JSON:API 503 (in
 * place of Fastify's return503OnClosing body) and the connection is closed after the answer.
 */
export function registerClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw catalogueError('shutting_down', 'The server is shutting down. Please retry in a moment.', {
      headers: { 'retry-after': '1' },
    });
  });
}
