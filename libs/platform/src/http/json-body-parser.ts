import type { FastifyInstance } from 'fastify';
import { type DomainError, invalidInput, partTooLarge } from '#warden/kernel';
import { findJsonBodyProblem, type JsonBodyLimits, type JsonBodyProblem } from './json-body-limits.js';

export const malformedJson = (): DomainError =>
  invalidInput({ title: 'Malformed JSON', detail: 'The request body is not valid JSON', pointer: '' });

/**
 * Replaces Fastify's JSON parser with one that checks the limits of the parsed body before
 * anything else walks it: the validators behind it recurse, and a body nested 1,500 levels deep
 * overflowed their stack. V8's JSON.parse itself does not recurse. Fastify's body limit still
 * applies (the raw body is read by Fastify), and its 415 for other content types is unchanged.
 */
export function installJsonBodyParser(fastify: FastifyInstance, limits: JsonBodyLimits): void {
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    let value: unknown;
    try {
      // A leading byte order mark is tolerated, as Fastify's own parser did.
      value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
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

export function bodyProblemError(problem: JsonBodyProblem): DomainError {
  const detail = { detail: problem.detail, pointer: problem.pointer };
  return problem.kind === 'too-large'
    ? partTooLarge({ title: 'Payload too large', ...detail })
    : invalidInput({ title: 'Invalid request', ...detail });
}
