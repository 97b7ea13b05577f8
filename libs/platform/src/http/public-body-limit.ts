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

/** For Fastify's onRoute hook: the marked routes get the public limit as their own body limit. */
export function applyPublicBodyLimit(route: { config?: unknown; bodyLimit?: number }, limitBytes: number): void {
  const config = route.config as Record<string, unknown> | undefined;
  if (config?.[PUBLIC_BODY] === true) route.bodyLimit = Math.min(route.bodyLimit ?? limitBytes, limitBytes);
}
