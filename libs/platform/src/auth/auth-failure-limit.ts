import type { FastifyInstance } from 'fastify';

/**
 * The budget of failed authentications (a missing or unknown X-API-KEY) per client address.
 * A client that invents a new key for every request gets a fresh per-key bucket each time; this
 * budget is what stops it. The HTTP layer attaches it to the app's requests; the API-key guard
 * charges it only when a request fails to authenticate, so a valid key is never refused by it,
 * whatever else comes from the same address (NAT, a shared proxy).
 */
export interface AuthFailureLimit {
  /** Counts one failed authentication from `address`; throws the 429 error when the budget is spent. */
  charge(address: string): Promise<void>;
}

const LIMIT = 'wardenAuthFailureLimit';

type WithLimit = { [LIMIT]?: AuthFailureLimit };

/** Makes `limit` every request's limit: one request decoration, no work per request. */
export function attachAuthFailureLimit(fastify: FastifyInstance, limit: AuthFailureLimit): void {
  fastify.decorateRequest(LIMIT, { getter: () => limit });
}

/** The limit of the app `request` came to, or none when it is off (WARDEN_AUTH_FAILURES_PER_MINUTE=0). */
export function authFailureLimitOf(request: object): AuthFailureLimit | undefined {
  return (request as WithLimit)[LIMIT];
}
