import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WardenConfig } from '#warden/platform';
import { SAML_REQUEST_TTL_MS } from '../saml/saml-request-ids.js';

/** The cookie that binds a browser to the sign-in it started: the request id's digest (requestBindingOf). */
export const SAML_REQUEST_COOKIE = 'warden_saml_request';

/**
 * Sent only to the organization's ACS. The IdP posts the response there from its own site (a
 * cross-site top-level POST), which carries a cookie only when it is `SameSite=None`, and browsers
 * take that only with `Secure`. Without TLS (a public URL starting with http://) a browser would
 * drop such a cookie, so it is `SameSite=Lax` there: it still reaches the ACS when the IdP is on
 * the same site (a local IdP during development), and otherwise the sign-in is refused as
 * `unbound-request` (docs/sso.md: SAML needs https).
 */
export function samlRequestCookieOptions(config: WardenConfig, orgId: string) {
  const tls = !withoutTls(config);
  return { httpOnly: true, secure: tls, sameSite: tls ? ('none' as const) : ('lax' as const), path: `/saml/acs/${encodeURIComponent(orgId)}` };
}

export const withoutTls = (config: WardenConfig): boolean => config.publicUrl.startsWith('http://');

export function setSamlRequestCookie(reply: FastifyReply, binding: string, orgId: string, config: WardenConfig): void {
  reply.setCookie(SAML_REQUEST_COOKIE, binding, { ...samlRequestCookieOptions(config, orgId), maxAge: SAML_REQUEST_TTL_MS / 1000 });
}

/** After the ACS used it, whatever the outcome: a binding serves one response. */
export function clearSamlRequestCookie(reply: FastifyReply, orgId: string, config: WardenConfig): void {
  reply.clearCookie(SAML_REQUEST_COOKIE, samlRequestCookieOptions(config, orgId));
}

export function samlRequestCookieOf(request: FastifyRequest): string | null {
  const value = request.cookies[SAML_REQUEST_COOKIE];
  return typeof value === 'string' && value !== '' ? value : null;
}
