import { Injectable } from '@nestjs/common';
import type { SsoSessionCookie } from './sso-session-cookie.js';

/** Until console sessions exist there is no session to write (UnwiredSsoSignIn never opens one). */
@Injectable()
export class UnwiredSessionCookie implements SsoSessionCookie {
  set(): void {}
}
