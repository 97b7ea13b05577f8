import { SetMetadata } from '@nestjs/common';

/**
 * @nestjs/platform-fastify's key for a handler's Fastify route config (what its RouteConfig
 * decorator sets), spelled here: the console's route decorators are loaded by CLI calls too, which
 * must not load the HTTP stack (test/cli-startup.spec.ts). public-body-limit.spec.ts checks it
 * against the library's own constant.
 */
export const FASTIFY_ROUTE_CONFIG_KEY = '__fastify_route_config__';

/** The Fastify route config member that marks a route reached without a credential. */
const PUBLIC_BODY = 'wardenPublicBody';

/**
 * On a route anyone may reach (signing in, accepting an invitation): its body is read under
 * WARDEN_PUBLIC_BODY_LIMIT_BYTES rather than the API's 10 MiB, so that a stranger's request costs
 * little before any credential is checked (docs/api.md, "Request limits"). Fastify refuses a larger
 * body with 413 while reading it, before any parsing.
 */
export const PublicBodyLimit = () => SetMetadata(FASTIFY_ROUTE_CONFIG_KEY, { [PUBLIC_BODY]: true });

/** The Fastify route config member that marks a route whose body is read only for a valid console session. */
const SESSION_BODY = 'wardenSessionBody';

/**
 * On a console route that needs a session (RequirePermissions): a request with a body is
 * authenticated before the body is read (early-session-check.ts), so that a stranger's megabytes
 * are never parsed.
 */
export const SessionBeforeBody = () => SetMetadata(FASTIFY_ROUTE_CONFIG_KEY, { [SESSION_BODY]: true });

/** Whether a route's Fastify config asks for the session before the body. */
export const needsSessionBeforeBody = (config: unknown): boolean => (config as Record<string, unknown> | undefined)?.[SESSION_BODY] === true;

/** For Fastify's onRoute hook: the marked routes get the public limit as their own body limit. */
export function applyPublicBodyLimit(route: { config?: unknown; bodyLimit?: number }, limitBytes: number): void {
  const config = route.config as Record<string, unknown> | undefined;
  if (config?.[PUBLIC_BODY] === true) route.bodyLimit = Math.min(route.bodyLimit ?? limitBytes, limitBytes);
}
