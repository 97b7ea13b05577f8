import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ConsolePrincipal } from '../auth/console-access.js';
import type { Principal } from '../auth/principal.js';

/** The field that names the request in every line Fastify logs for it (the X-Request-Id, as in error bodies). */
export const REQUEST_ID_LOG_FIELD = 'requestId';

type LoggedRequest = FastifyRequest & { principal?: Principal; consolePrincipal?: ConsolePrincipal };

/**
 * The access log: exactly one line per answered request, written when the response has been
 * sent (Fastify's own two, "incoming request" and "request completed", doubled the log).
 *
 * {"level":30,…,"component":"http","requestId":"…","method":"POST","route":"/api/v1/items/async",
 *  "status":202,"durationMs":4.2,"orgId":"acme","remoteAddress":"10.0.0.7","msg":"request"}
 *
 * The route is the pattern Fastify matched (`/api/v1/items/:typeId/:id/evaluations`; null when
 * none did), never the URL: paths and query strings carry ids of people and items, tokens and
 * signatures. Nothing of the request's headers or body is logged (no API key, no cookie).
 * orgId is the caller's organization (its API key or console session), or the one a public
 * per-organization route names (SAML sign-in), else null.
 *
 * At the debug level a request's start is logged too ("request started"), to tell a request
 * that never finished from one that never arrived.
 */
export class AccessLog extends LogController {
  constructor() {
    super({ requestIdLogLabel: REQUEST_ID_LOG_FIELD });
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, route: routeOf(request) }, 'request started');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      route: routeOf(request),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      orgId: orgIdOf(request as LoggedRequest),
      remoteAddress: request.ip,
    };
    // The response failed on the way out (the connection broke): still one line, saying so.
    if (error) request.log.warn({ ...line, error: error.message }, 'request');
    else request.log.info(line, 'request');
  }

  /** A 4xx from Fastify's own error handler is in the request's line already; a 5xx is logged as an error too. */
  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (reply.statusCode >= 500) super.defaultErrorLog(error, request, reply);
  }

  /** An unknown route is the request's line with route null. */
  override routeNotFound(): void {}
}

function routeOf(request: FastifyRequest): string | null {
  return request.routeOptions?.url ?? null;
}

function orgIdOf(request: LoggedRequest): string | null {
  const authenticated = request.principal?.orgId ?? request.consolePrincipal?.orgId;
  if (authenticated !== undefined) return authenticated;
  const named = (request.params as Record<string, unknown> | null | undefined)?.['orgId'];
  return typeof named === 'string' ? named : null;
}
