import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { OpenedConsoleSession } from '#warden/identity';
import { setSessionCookie } from '#warden/identity/http';
import type { WardenConfig } from '#warden/platform';
import type { SsoSessionCookie } from './sso-session-cookie.js';

/** The identity module's session cookie, exactly as a password sign-in sets it. */
@Injectable()
export class IdentitySessionCookie implements SsoSessionCookie {
  set(reply: FastifyReply, session: unknown, config: WardenConfig): void {
    setSessionCookie(reply, session as OpenedConsoleSession, config);
  }
}
