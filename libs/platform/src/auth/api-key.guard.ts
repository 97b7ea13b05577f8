import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { forbidden, unauthorized } from '#warden/kernel';
import { authFailureLimitOf } from './auth-failure-limit.js';
import { CONSOLE_ACCESS } from './console-access.js';
import { API_KEY_AUTHENTICATOR, type ApiKeyAuthenticator, IS_PUBLIC, type Principal } from './principal.js';

type Authenticated = FastifyRequest & { principal?: Principal };

/**
 * Every route needs an X-API-KEY unless marked @Public(). A missing or unknown key counts against
 * the client address's failure budget; once that is spent, such requests get 429 instead of 401.
 * The customer API's requests were authenticated before their body was read (installEarlyApiKeyCheck);
 * the guard finds their principal and has nothing left to do.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_AUTHENTICATOR) private readonly authenticator: ApiKeyAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    // Public routes need nothing; console routes are the console guard's (a session, not a key).
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<unknown>(CONSOLE_ACCESS, targets) !== undefined) return true;
    const request = context.switchToHttp().getRequest<Authenticated>();
    if (request.principal === undefined) await authenticateApiKey(request, this.authenticator);
    return true;
  }
}

/** Sets the request's principal from its X-API-KEY, or throws the 401, 403 or 429 it gets instead. */
export async function authenticateApiKey(request: Authenticated, authenticator: ApiKeyAuthenticator): Promise<void> {
  const failures = authFailureLimitOf(request);
  // Fastify lower-cases header names, so X-API-KEY matches in any case.
  const raw = request.headers['x-api-key'];
  const key = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!key) {
    await failures?.charge(request.ip);
    throw unauthorized('The X-API-KEY header is missing');
  }
  // Looked up (caught up with the log on a miss) before the budget is charged: a key created a
  // moment ago is valid, and a valid key is never refused by the failure budget.
  const result = await authenticator.authenticate(key);
  if (result.outcome === 'unknown') {
    await failures?.charge(request.ip);
    throw unauthorized('The API key is not valid');
  }
  if (result.outcome === 'inactive') {
    throw forbidden(result.reason === 'revoked' ? 'The API key was revoked' : 'The API key was rotated out');
  }
  request.principal = result.principal;
}
