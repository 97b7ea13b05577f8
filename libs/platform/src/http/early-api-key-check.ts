import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '#warden/kernel';
import { authenticateApiKey } from '../auth/api-key.guard.js';
import type { ApiKeyAuthenticator } from '../auth/principal.js';
import { replyWithError } from './send-error.js';

/** Every route of the customer API takes an X-API-KEY: none of them is public. */
export const CUSTOMER_API = '/api/v1/';

/** Whether a request's route is the customer API's: the routes whose key is checked before the body (below). */
export function isCustomerRoute(request: FastifyRequest): boolean {
  return request.routeOptions.url?.startsWith(CUSTOMER_API) ?? false;
}

/**
 * Authenticates a customer API request before its body is read (Fastify's preParsing hook): a
 * request without a valid key is answered 401, 403 or 429 at once, and its failure is charged to
 * the address's budget, however large or malformed the body it came with. Parsed first, a 10 MB
 * body cost a second of the event loop and a 400 that charged nothing (docs/api.md, "Rate limits"). The API-key
 * guard then finds the principal set.
 */
export function installEarlyApiKeyCheck(fastify: FastifyInstance, authenticator: ApiKeyAuthenticator): void {
  fastify.addHook('preParsing', async (request: FastifyRequest, reply: FastifyReply, payload) => {
    if (!isCustomerRoute(request)) return payload;
    try {
      await authenticateApiKey(request, authenticator);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return replyWithError(reply, request, error);
    }
    return payload;
  });
}
