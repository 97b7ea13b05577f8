import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { CommandContext } from '#warden/kernel';

/** Who is calling: the organization (and team) an API key is scoped to. */
export interface Principal {
  readonly orgId: string;
  readonly keyId: string;
  readonly team: string | null;
}

/** The command context of a customer API request: the key's organization; its events name the key as their actor. */
export function apiKeyCommandContext(principal: Principal, requestId: string): CommandContext {
  return { orgId: principal.orgId, correlationId: requestId, actor: `api-key:${principal.keyId}` };
}

export type AuthenticationResult =
  | { readonly outcome: 'ok'; readonly principal: Principal }
  | { readonly outcome: 'unknown' }
  | { readonly outcome: 'inactive'; readonly reason: 'revoked' | 'rotated' };

/** Implemented by the identity module; the guard only knows this contract. */
export interface ApiKeyAuthenticator {
  /** Looks the key up; a key the read model does not know is looked up again after catching up with the log. */
  authenticate(rawKey: string): Promise<AuthenticationResult>;
}

export const API_KEY_AUTHENTICATOR = Symbol('ApiKeyAuthenticator');

const PUBLIC = 'warden:public';
/** Marks a route that needs no API key (health, metrics, signing keys). */
export const Public = () => SetMetadata(PUBLIC, true);
export const IS_PUBLIC = PUBLIC;

export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const request = ctx.switchToHttp().getRequest<{ principal?: Principal }>();
  if (!request.principal) throw new Error('No principal on an authenticated route');
  return request.principal;
});
