import type { FastifyReply } from 'fastify';
import type { WardenConfig } from '#warden/platform';

/** Writes the session a sign-in opened into the response (the identity module's cookie). */
export interface SsoSessionCookie {
  set(reply: FastifyReply, session: unknown, config: WardenConfig): void;
}

export const SSO_SESSION_COOKIE = Symbol('SsoSessionCookie');
