import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { invalidInput, payloadTooLarge, unsupportedMediaType } from '#warden/kernel';
import { OversizedSamlPost } from '../saml/saml-response-limits.js';

/** The route that takes the IdP's form: the browser's POST of its response (SAML HTTP-POST binding). */
export const ACS_ROUTE = '/saml/acs/:orgId';
/** The sign-in start's form (the confirmation page's button, the console's SSO form): a field or two. */
export const LOGIN_ROUTE = '/saml/login/:orgId';
const LOGIN_FORM_LIMIT_BYTES = 1024;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Fastify parses content types per instance, not per route, and Nest registers every route on
 * the root instance. So the form parser is installed for all routes and refuses every one but
 * the ACS with the same 415 a form gets today: the customer and console APIs keep taking JSON only.
 *
 * The ACS reads at most `limitBytes` (WARDEN_SAML_BODY_LIMIT_BYTES). A larger post is not read
 * further and becomes an OversizedSamlPost rather than Fastify's own 413: the sign-in is then
 * refused like any other (recorded as SsoLoginFailed, an HTML page for a browser), before any
 * of it is decoded.
 */
export function installSamlFormBodyParser(fastify: FastifyInstance, limitBytes: number): void {
  fastify.addContentTypeParser('application/x-www-form-urlencoded', (request, payload, done) => {
    const route = request.routeOptions.url;
    if (route !== ACS_ROUTE && route !== LOGIN_ROUTE) {
      done(unsupportedMediaType('Request bodies must be JSON, sent with Content-Type: application/json'), undefined);
      return;
    }
    const limit = route === LOGIN_ROUTE ? LOGIN_FORM_LIMIT_BYTES : limitBytes;
    readAtMost(payload, Number(request.headers['content-length']), limit, (error, body) => {
      if (error) return done(error, undefined);
      if (body instanceof OversizedSamlPost) return done(route === LOGIN_ROUTE ? payloadTooLarge(limit) : null, route === LOGIN_ROUTE ? undefined : body);
      let text: string;
      try {
        text = UTF8.decode(body);
      } catch {
        done(invalidInput({ title: 'Malformed form', detail: 'The request body is not well-formed UTF-8', pointer: '' }), undefined);
        return;
      }
      done(null, Object.fromEntries(new URLSearchParams(text)));
    });
  });
}

/**
 * The body, or an OversizedSamlPost as soon as it is known to pass `limitBytes` (from its
 * Content-Length, or while reading): what was read so far is dropped, and the rest is left to
 * Node, which discards it, as it does after Fastify's own 413.
 */
function readAtMost(
  payload: Readable,
  contentLength: number,
  limitBytes: number,
  then: (error: Error | null, body?: Buffer | OversizedSamlPost) => void,
): void {
  if (contentLength > limitBytes) return then(null, new OversizedSamlPost());
  const chunks: Buffer[] = [];
  let received = 0;
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.length;
    if (received > limitBytes) {
      stop();
      chunks.length = 0;
      then(null, new OversizedSamlPost());
      return;
    }
    chunks.push(bytes);
  };
  const onEnd = () => {
    stop();
    then(null, Buffer.concat(chunks, received));
  };
  const onError = (error: Error & { statusCode?: number }) => {
    stop();
    // A request the client broke off: Fastify answers (if it still can) with a 4xx, as for JSON.
    if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
    then(error);
  };
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}
