import { Injectable } from '@nestjs/common';
import { unavailable } from '#warden/kernel';
import type { SsoSignIn } from './sso-sign-in.port.js';

/** Until dashboard users and sessions exist: a verified response cannot open a session yet. */
@Injectable()
export class UnwiredSsoSignIn implements SsoSignIn {
  async signIn(): Promise<never> {
    throw unavailable('SSO sign-in is not wired to console sessions yet');
  }
}
