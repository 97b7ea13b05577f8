import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, unauthorized } from '#warden/kernel';
import { authFailureLimitOf } from '../auth/auth-failure-limit.js';
import type { ConsoleAuthenticator } from '../auth/console-access.js';
import { rememberSessionPrincipal } from '../auth/console.guard.js';
import { replyWithError } from './send-error.js';
import { needsSessionBeforeBody } from './public-body-limit.js';

/** Whether the request comes with a body (a length, or one sent in chunks). */
const hasBody = (request: FastifyRequest): boolean =>
  request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

/**
 * Checks the console session before the body of a route that needs one is read (Fastify's
 * preParsing hook), as the customer API checks its key (early-api-key-check.ts): without a valid
 * session the request is answered 401 at once, however large its body, and an invented cookie
 * is charged to the address's budget of failed authentications. Parsed first, 10 MiB of JSON sent
 * without any session held the event loop for up to two seconds before the guard's 401. The
 * console guard still makes every check (origin, CSRF, permissions) once the body is read, on the
 * principal found here (not looked up twice).
 */
export function installEarlySessionCheck(fastify: FastifyInstance, authenticator: ConsoleAuthenticator, cookieName: string): void {
  fastify.addHook('preParsing', async (request: FastifyRequest, reply: FastifyReply, payload) => {
    if (!hasBody(request) || !needsSessionBeforeBody(request.routeOptions.config)) return payload;
    const token = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies?.[cookieName];
    const principal = token ? await authenticator.authenticate(token) : null;
    if (principal !== null) {
      rememberSessionPrincipal(request, principal);
      return payload;
    }
    // The guard's own rule: a cookie that names no session counts against the address (a 429 once spent).
    try {
      if (token) await authFailureLimitOf(request)?.charge(request.ip);
    } catch (error) {
      if (error instanceof DomainError) return replyWithError(reply, request, error);
      throw error;
    }
    return replyWithError(reply, request, unauthorized('Sign in first: no valid console session'));
  });
}
