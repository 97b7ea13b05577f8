import type { FastifyInstance } from 'fastify';
import { invalidInput, unsupportedMediaType } from '#warden/kernel';

/** The one route that takes a form: the IdP's browser POST (SAML HTTP-POST binding). */
export const ACS_ROUTE = '/saml/acs/:orgId';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Fastify parses content types per instance, not per route, and Nest registers every route on
 * the root instance. So the form parser is installed for all routes and refuses every one but
 * the ACS with the same 415 a form gets today: the customer and console APIs keep taking JSON only.
 */
export function installSamlFormBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body, done) => {
    if (request.routeOptions.url !== ACS_ROUTE) {
      done(unsupportedMediaType('Request bodies must be JSON, sent with Content-Type: application/json'), undefined);
      return;
    }
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      done(invalidInput({ title: 'Malformed form', detail: 'The request body is not well-formed UTF-8', pointer: '' }), undefined);
      return;
    }
    done(null, Object.fromEntries(new URLSearchParams(text)));
  });
}
