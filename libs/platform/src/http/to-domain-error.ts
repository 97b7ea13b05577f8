import { HttpException } from '@nestjs/common';
import {
  DomainError,
  internalError,
  invalidInput,
  notFound,
  payloadTooLarge,
  unauthorized,
  forbidden,
  unsupportedMediaType,
  methodNotAllowed,
  MAX_ID_LENGTH,
} from '#warden/kernel';

/**
 * The router's limit on one path parameter, compared with the parameter as the router reads it
 * (escapes decoded one byte at a time, those of reserved characters kept): the longest customer
 * id, MAX_ID_LENGTH UTF-16 units, can be up to nine characters a unit that way (`€` is
 * `%E2%82%AC`), so every accepted id is reachable. Fastify's default (100) made items with longer
 * ids unreachable by path. A longer parameter that still passes is checked by its route.
 */
export const MAX_PARAM_LENGTH = 9 * MAX_ID_LENGTH;

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
}

/**
 * Every failure becomes a DomainError before it is answered: ours pass through, framework and
 * parser errors are translated, and anything unexpected is a 500 whose message is not leaked.
 */
export function toDomainError(thrown: unknown, bodyLimitBytes: number): { error: DomainError; unexpected: boolean } {
  // Nest wraps Fastify's own 4xx errors (body parsing, limits) in an HttpException.
  const error = thrown instanceof HttpException && thrown.cause ? thrown.cause : thrown;
  if (error instanceof DomainError) return { error, unexpected: false };
  const e = error as FastifyLikeError;
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { error: invalidInput({ title: 'Malformed JSON', detail: 'The request body is not valid JSON', pointer: '' }), unexpected: false };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { error: payloadTooLarge(bodyLimitBytes), unexpected: false };
    // The router refuses these before any hook or route runs (see createHttpApp's frameworkErrors).
    // Neither can name a resource: a 404, like an id that does not exist.
    case 'FST_ERR_BAD_URL':
      return { error: notFound('The path is not valid percent-encoded UTF-8, so it names nothing'), unexpected: false };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return {
        error: notFound(`A path parameter is longer than any id (${MAX_ID_LENGTH} characters at most)`),
        unexpected: false,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        error: unsupportedMediaType('Request bodies must be JSON, sent with Content-Type: application/json'),
        unexpected: false,
      };
  }
  if (error instanceof SyntaxError && /JSON/.test(error.message)) {
    return { error: invalidInput({ title: 'Malformed JSON', detail: 'The request body is not valid JSON', pointer: '' }), unexpected: false };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const detail = error.message;
    if (status === 404) return { error: notFound(detail), unexpected: false };
    if (status === 401) return { error: unauthorized(detail), unexpected: false };
    if (status === 403) return { error: forbidden(detail), unexpected: false };
    if (status === 405) return { error: methodNotAllowed(detail, []), unexpected: false };
    if (status === 413) return { error: payloadTooLarge(bodyLimitBytes), unexpected: false };
    if (status === 415) return { error: unsupportedMediaType(detail), unexpected: false };
    if (status >= 400 && status < 500) return { error: invalidInput({ title: 'Invalid request', detail }), unexpected: false };
  }
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return { error: invalidInput({ title: 'Invalid request', detail: e.message ?? 'Bad request' }), unexpected: false };
  }
  return { error: internalError(), unexpected: true };
}
