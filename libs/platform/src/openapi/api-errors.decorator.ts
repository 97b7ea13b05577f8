import { applyDecorators } from '@nestjs/common';
import { ApiCookieAuth, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../http/error-body.js';
import { API_KEY_SCHEME, CONSOLE_TAG, PAYLOAD_TOO_LARGE_DESCRIPTION, SESSION_SCHEME } from './openapi.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failure, malformed JSON (`/errors/invalid-user-input`, with a `pointer` to the field)',
  401: 'The API key is missing or not valid (`/errors/unauthorized`)',
  403: 'The API key was revoked or rotated out (`/errors/forbidden`)',
  404: 'Not found (`/errors/not-found`)',
  405: 'Method not allowed on this path (`/errors/method-not-allowed`)',
  409: 'Concurrent update conflict (`/errors/concurrent-update-conflict`)',
  413: PAYLOAD_TOO_LARGE_DESCRIPTION,
  415: 'The request body is not JSON (`/errors/unsupported-media-type`)',
  429: 'Rate limit exceeded for this API key (a body counts once per 64 KiB of its Content-Length), or too many failed authentications from this address (without a valid key); see `Retry-After` (`/errors/rate-limited`)',
  500: 'Internal error; no details are leaked (`/errors/internal`)',
  503: 'A store is unavailable, or the server is shutting down: retry (`/errors/unavailable`)',
};

/** Documents the error body (docs/api.md, "Errors") for the given statuses. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(...statuses.map((status) => ApiResponse({ status, description: DESCRIPTIONS[status] ?? 'Error', type: ErrorBodyDto })));
}

/**
 * An API-key-authenticated customer route: security scheme plus the errors every such route can
 * give. 404 and 405 are not among them: they answer paths and methods that are no operation (the
 * document's description says so); a route whose handler can answer them lists them.
 */
export function ApiCustomerRoute(...extraStatuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiSecurity(API_KEY_SCHEME), ApiErrors(...[...new Set([401, 403, 429, 500, 503, ...extraStatuses])].sort((a, b) => a - b)));
}

const CONSOLE_DESCRIPTIONS: Record<number, string> = {
  401: 'No valid console session: not signed in, signed out, expired (30 days, or unused for WARDEN_CONSOLE_IDLE_TIMEOUT_SECONDS), or the user was disabled (`/errors/unauthorized`)',
  403: "The user's roles lack the route's permission, a mutating request lacks the session's `X-CSRF-Token` or comes from another origin, or a browser's request was not made by the console's own pages (`Sec-Fetch-Site` other than `same-origin`) (`/errors/forbidden`)",
};

/** A public console route (sign-in, an invitation) has no roles to lack. */
const PUBLIC_CONSOLE_FORBIDDEN =
  "A mutating request from another origin (`Origin`), or a browser's request not made by the console's own pages (`Sec-Fetch-Site` other than `same-origin`) (`/errors/forbidden`)";

/** A change that needs a recent sign-in (RecentSignIn) can also be refused for that. */
const RECENT_SIGN_IN_FORBIDDEN = `${CONSOLE_DESCRIPTIONS[403]!.replace(/ \(`\/errors\/forbidden`\)$/, '')} (\`/errors/forbidden\`); or the session was opened longer ago than WARDEN_CONSOLE_RECENT_SIGN_IN_SECONDS (15 minutes unless configured): sign in again (\`/errors/recent-sign-in-required\`)`;

/**
 * A console route in the OpenAPI document: the `console` tag, the session cookie scheme (unless
 * `public`, for sign-in), and the errors every such route can give plus `extraStatuses`.
 */
export function ApiConsoleRoute(options: { public?: boolean; recentSignIn?: boolean } = {}, ...extraStatuses: number[]): MethodDecorator & ClassDecorator {
  // 403 on public routes too: the requesting site is checked on every console route (ConsoleGuard).
  const statuses = [...new Set([...(options.public ? [] : [401]), 403, 429, 500, 503, ...extraStatuses])].sort((a, b) => a - b);
  return applyDecorators(
    ApiTags(CONSOLE_TAG),
    ...(options.public ? [] : [ApiCookieAuth(SESSION_SCHEME)]),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description:
          (options.public && status === 403
            ? PUBLIC_CONSOLE_FORBIDDEN
            : options.recentSignIn && status === 403
              ? RECENT_SIGN_IN_FORBIDDEN
              : CONSOLE_DESCRIPTIONS[status]) ??
          DESCRIPTIONS[status] ??
          'Error',
        type: ErrorBodyDto,
      }),
    ),
  );
}
