import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where Swagger UI is served (serveOpenApi): its page, its init script and swagger-ui-dist's files. */
export const DOCS_PATH = '/docs';

/**
 * What a page under /docs may do: Swagger UI's own scripts and stylesheet, from here; images from
 * here and data: URLs (its stylesheet's icons are data: SVGs); "Try it out" requests to this
 * origin only; nothing else loads, nothing frames it, no form posts elsewhere. @nestjs/swagger
 * writes two <style> blocks and one style attribute into the page: those run by their hashes
 * (style-src's 'unsafe-hashes' is what lets a hash allow an attribute), taken from the page
 * itself, so no other inline style does, and no inline script at all (swagger-ui-dist's
 * oauth2-redirect.html, which Warden does not use, is served inert).
 */
export function docsContentSecurityPolicy(html: string | undefined): string {
  const hashes = html === undefined ? [] : inlineStyles(html).map((text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`);
  return [
    "default-src 'none'",
    "script-src 'self'",
    ["style-src 'self'", ...(hashes.length > 0 ? ["'unsafe-hashes'", ...new Set(hashes)] : [])].join(' '),
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The text of each <style> element and each style attribute of a page, as a CSP hash covers them. */
function inlineStyles(html: string): string[] {
  const elements = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]!);
  const attributes = [...html.matchAll(/\sstyle\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)].map((m) => decodeEntities(m[1] ?? m[2]!));
  return [...elements, ...attributes];
}

/** An attribute's value as the browser hashes it: after its character references are read. */
function decodeEntities(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!);
}

const isDocs = (request: FastifyRequest) => {
  const route = request.routeOptions.url;
  return route === DOCS_PATH || (route?.startsWith(`${DOCS_PATH}/`) ?? false);
};

/**
 * The headers of every response under /docs: the CSP above (with the hashes of the page it comes
 * with), and, as on the console's page, no MIME sniffing, no framing, no referrer.
 */
export function installDocsPageHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (!isDocs(request)) return payload;
    const html = typeof payload === 'string' && /^text\/html/.test(String(reply.getHeader('content-type') ?? '')) ? payload : undefined;
    reply
      .header('Content-Security-Policy', docsContentSecurityPolicy(html))
      .header('X-Content-Type-Options', 'nosniff')
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'no-referrer');
    return payload;
  });
}
