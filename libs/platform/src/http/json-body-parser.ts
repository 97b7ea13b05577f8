import type { FastifyInstance } from 'fastify';
import { DomainError, invalidInput, partTooLarge } from '#warden/kernel';
import { findJsonBodyProblem, type JsonBodyLimits, type JsonBodyProblem } from './json-body-limits.js';

/** Strict: bytes that are not UTF-8 are refused, not replaced by U+FFFD (two ids would merge). The BOM is dropped. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

const notUtf8 = (): DomainError => invalidInput({ title: 'Malformed JSON', detail: 'The request body is not well-formed UTF-8', pointer: '' });

const unsupportedCharset = (charset: string): DomainError =>
  new DomainError('unsupported-media-type', [
    { title: 'Unsupported media type', detail: `JSON bodies are read as UTF-8; charset=${charset.slice(0, 40)} is not supported` },
  ]);

const malformedJson = (): DomainError => invalidInput({ title: 'Malformed JSON', detail: 'The request body is not valid JSON', pointer: '' });

/**
 * Replaces Fastify's JSON parser with one that checks the limits of the parsed body before
 * anything else walks it: the validators behind it recurse, and a body nested 1,500 levels deep
 * overflowed their stack. V8's JSON.parse itself does not recurse. Fastify's body limit still
 * applies (the raw body is read by Fastify), and its 415 for other content types is unchanged.
 */
export function installJsonBodyParser(fastify: FastifyInstance, limits: JsonBodyLimits): void {
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // No route takes it (a 404, or a 405 for another method): nothing will read the body, so it is
    // not parsed. A stranger's 10 MiB of JSON to any path cost seconds of the event loop.
    if (request.routeOptions.url === undefined) {
      done(null, undefined);
      return;
    }
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      done(unsupportedCharset(charset), undefined);
      return;
    }
    let text: string;
    try {
      // A leading byte order mark is tolerated (the decoder drops it), as Fastify's own parser did.
      text = UTF8.decode(body as Buffer);
    } catch {
      done(notUtf8(), undefined);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      done(malformedJson(), undefined);
      return;
    }
    const problem = findJsonBodyProblem(value, limits);
    if (problem) {
      done(bodyProblemError(problem), undefined);
      return;
    }
    done(null, value);
  });
}

function bodyProblemError(problem: JsonBodyProblem): DomainError {
  const detail = { detail: problem.detail, pointer: problem.pointer };
  return problem.kind === 'too-large' ? partTooLarge({ title: 'Payload too large', ...detail }) : invalidInput({ title: 'Invalid request', ...detail });
}
