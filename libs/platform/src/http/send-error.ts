import type { LoggerService } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainError } from '#warden/kernel';
import { errorBody } from './error-body.js';
import { toDomainError } from './to-domain-error.js';

export function sendError(exception: unknown, request: FastifyRequest, reply: FastifyReply, bodyLimitBytes: number, logger: LoggerService): void {
  // A route may read bodies under a limit of its own (public-body-limit.ts): the answer names it.
  const { error, unexpected } = toDomainError(exception, request.routeOptions?.bodyLimit ?? bodyLimitBytes);
  if (unexpected) {
    logger.error({ msg: 'unexpected error', requestId: request.id, err: describe(exception) });
  }
  if (reply.sent) return;
  replyWithError(reply, request, error);
}

/** Answers with `error`'s status, the headers it names and the error body: for hooks that refuse a request before Nest sees it, too. */
export function replyWithError(reply: FastifyReply, request: FastifyRequest, error: DomainError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.status(error.status).type('application/json').send(errorBody(error, request.id));
}

function describe(e: unknown): Record<string, unknown> {
  return e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : { value: String(e) };
}
