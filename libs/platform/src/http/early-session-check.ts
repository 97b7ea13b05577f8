import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, unauthorized } from '#warden/kernel';
import { authFailureLimitOf } from '../auth/auth-failure-limit.js';
import type { ConsoleAuthenticator } from '../auth/console-access.js';
import { errorBody } from './error-body.js';
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
 * console guard still makes every check (origin, CSRF, permissions) once the body is read.
 */
export function installEarlySessionCheck(fastify: FastifyInstance, authenticator: ConsoleAuthenticator, cookieName: string): void {
  fastify.addHook('preParsing', async (request: FastifyRequest, reply: FastifyReply, payload) => {
    if (!hasBody(request) || !needsSessionBeforeBody(request.routeOptions.config)) return payload;
    const token = (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies?.[cookieName];
    if (token && (await authenticator.authenticate(token)) !== null) return payload;
    try {
      // The guard's own rule: a cookie that names no session counts against the address (a 429 once spent).
      if (token) await authFailureLimitOf(request)?.charge(request.ip);
      throw unauthorized('Sign in first: no valid console session');
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return reply.status(error.status).type('application/json').send(errorBody(error, request.id));
    }
  });
}
