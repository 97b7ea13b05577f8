import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import { ErrorBodyDto } from '../http/error-body.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

/**
 * Makes a customer POST safe to retry with an Idempotency-Key (docs/api.md, "Retries and
 * idempotency"): put it on the route handler, after the route's own decorators. The route must
 * need an API key (the key is scoped to its organization; `@ApiCustomerRoute()`, which also
 * documents the 503 of an unreachable store of keys) and return its body (with
 * `@Res({ passthrough: true })` at most), so that the interceptor sees what to store.
 */
export function Idempotent(): MethodDecorator {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes a retry safe: 1 to 255 printable ASCII characters, unique per request (a UUID). Within the retention ' +
        '(24 h by default) a repeat with the same key and the same body (compared as canonical JSON) runs nothing and ' +
        "gets the first response again, with `Idempotent-Replayed: true` and the first request's `requestId` in the " +
        "body. Only successful (2xx) responses are kept; keys are scoped to the API key's organization. " +
        'An invalid key is a 400 pointing at `/headers/idempotency-key`; when the store of keys cannot be reached, a ' +
        'request with a key is a 503 rather than run unprotected.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
    }),
    ApiResponse({
      status: 409,
      description: 'A request with the same Idempotency-Key is still running (`/errors/idempotency-key-in-progress`); retry after `Retry-After` seconds',
      type: ErrorBodyDto,
    }),
    ApiResponse({
      status: 422,
      description: 'The Idempotency-Key was already used with another body or endpoint (`/errors/idempotency-key-reused`)',
      type: ErrorBodyDto,
    }),
    // No 503 of its own: the route's @ApiCustomerRoute() documents it, and Nest would print a
    // second description of the same status after the first.
  );
}
