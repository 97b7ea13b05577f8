import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SamlSignInTarget } from '../queries/get-saml-sign-in-target/get-saml-sign-in-target.query.js';
import { escapeHtml } from './refusal-page.js';

/**
 * Whether a sign-in start must be confirmed on a page of ours before the browser is sent to the
 * IdP (docs/sso.md, "Starting a sign-in"). An organization's admin sets its `sso_url`, so on a
 * shared deployment a link to `/saml/login/<org>` sent by mail or from another site could carry a
 * victim, through Warden's own address, to a sign-in page that the sender controls. A browser says
 * where a navigation comes from (Fetch Metadata): only one from our own pages that asks to go on
 * (`?continue=1`: the console's sign-in form, or the confirmation page's button) is sent straight
 * on. A client that sends no `Sec-Fetch-Site` (not a browser, or one too old to send it, or a
 * page served without TLS away from localhost, where browsers leave it out) is redirected as before.
 */
export function needsConfirmation(request: FastifyRequest, proceed: string | undefined): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site === undefined) return false;
  return !(site === 'same-origin' && proceed === '1');
}

/** The confirmation page: the organization and the IdP's host, and a button that goes on. */
export async function sendConfirmation(reply: FastifyReply, target: SamlSignInTarget): Promise<void> {
  const org = escapeHtml(target.orgName);
  const host = escapeHtml(target.idpHost);
  const next = escapeHtml(`/saml/login/${encodeURIComponent(target.orgId)}?continue=1`);
  await reply
    .status(200)
    .header('cache-control', 'no-store')
    // Nothing to run, nothing to frame (a framed button could be clicked for the user).
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in to ${org}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;line-height:1.5}a.button{display:inline-block;padding:.5rem 1rem;background:#1f4fd1;color:#fff;border-radius:4px;text-decoration:none}code{font-size:1.05em}</style></head>
<body><h1>Sign in to ${org}</h1>
<p>You are about to be sent to <strong><code>${host}</code></strong>, the identity provider that the organization <strong>${org}</strong> (<code>${escapeHtml(target.orgId)}</code>) has set up, to sign in to its Warden console.</p>
<p>Continue only if you expected to sign in to ${org}, and enter your password only on a page of <code>${host}</code> that you recognize.</p>
<p><a class="button" href="${next}">Continue to ${host}</a> <a href="/console/">Back to the console</a></p>
</body></html>
`);
}
