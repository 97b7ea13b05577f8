import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SamlSignInTarget } from '../queries/get-saml-sign-in-target/get-saml-sign-in-target.query.js';
import { isOwnOrigin } from '#warden/platform';
import { escapeHtml } from './refusal-page.js';

/**
 * Why a browser's sign-in start goes through a page of ours (docs/sso.md, "Starting a sign-in"):
 * an organization's admin sets its `sso_url`, so on a shared deployment a link to
 * `/saml/login/<org>` (in a mail, on another site, or in content a moderator reviews, which is
 * shown on our own origin) could carry someone, through Warden's own address, to a sign-in page
 * that the link's author controls. So a browser's GET (one that sends Fetch Metadata) gets the
 * confirmation page, naming the organization and its IdP's host; only the page's own form, a POST
 * from our origin, goes on to the IdP. A link cannot make a POST, and another site's form is told
 * apart by `Sec-Fetch-Site` (or, from a browser that sends none, by `Origin`).
 */
export function isBrowserNavigation(request: FastifyRequest): boolean {
  return request.headers['sec-fetch-site'] !== undefined;
}

/** Whether a POST of the sign-in form comes from one of this service's pages (else: the confirmation page again). */
export function postedFromOwnPage(request: FastifyRequest, publicUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = request.headers.origin;
  // No Origin either: not a browser (browsers send it with every POST).
  return origin === undefined || isOwnOrigin(request, origin, publicUrl);
}

/** The confirmation page: the organization and the IdP's host, and a form that goes on (`reauth`: ask the IdP to authenticate again). */
export async function sendConfirmation(reply: FastifyReply, target: SamlSignInTarget, reauth: boolean): Promise<void> {
  const org = escapeHtml(target.orgName);
  const host = escapeHtml(target.idpHost);
  const action = escapeHtml(`/saml/login/${encodeURIComponent(target.orgId)}`);
  await reply
    .status(200)
    .header('cache-control', 'no-store')
    // Nothing to run, nothing to frame (a framed button could be clicked for the user). No
    // form-action: it would also bind the redirect that follows the form, to the IdP.
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in to ${org}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{padding:.5rem 1rem;background:#1f4fd1;color:#fff;border:0;border-radius:4px;font:inherit;cursor:pointer}code{font-size:1.05em}</style></head>
<body><h1>Sign in to ${org}</h1>
<p>You are about to be sent to <strong><code>${host}</code></strong>, the identity provider that the organization <strong>${org}</strong> (<code>${escapeHtml(target.orgId)}</code>) has set up, to sign in to its Warden console.</p>
<p>Continue only if you expected to sign in to ${org}, and enter your password only on a page of <code>${host}</code> that you recognize.</p>
<form method="post" action="${action}">${reauth ? '<input type="hidden" name="reauth" value="1">' : ''}<button type="submit">Continue to ${host}</button> <a href="/console/">Back to the console</a></form>
</body></html>
`);
}
