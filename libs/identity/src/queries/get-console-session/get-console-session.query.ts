import { Query } from '@nestjs/cqrs';
import type { ConsolePrincipal } from '#warden/platform';

/** The principal of the session a cookie token names; null when none is valid (expired, revoked, user disabled). */
export class GetConsoleSessionQuery extends Query<ConsolePrincipal | null> {
  constructor(readonly sessionToken: string) {
    super();
  }
}
