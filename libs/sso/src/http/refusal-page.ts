import type { FastifyRequest } from 'fastify';
import type { DomainError } from '#warden/kernel';

/** A browser following the IdP's form post asks for HTML first; API clients and tests get JSON. */
export function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /\btext\/html\b/i.test(accept);
}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** What the JSON body says, as a page: the title, the detail and the request id to quote to an operator. */
export function refusalPage(error: DomainError, requestId: string): string {
  const detail = error.details.map((d) => d.detail ?? d.title).join(' ');
  const title = error.details[0]?.title ?? 'Sign-in refused';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p>
<p><small>Status ${error.status} · request ${escapeHtml(requestId)} · <code>${escapeHtml(error.type)}</code></small></p></body></html>
`;
}
