import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CONSOLE_AUTHENTICATOR, type ConsoleAuthenticator, type ConsolePrincipal } from '#warden/platform';
import { GetConsoleSessionQuery } from './get-console-session.query.js';

/** The same check the console guard makes, for the one public route that asks without failing. */
@QueryHandler(GetConsoleSessionQuery)
export class GetConsoleSessionHandler implements IQueryHandler<GetConsoleSessionQuery> {
  constructor(@Inject(CONSOLE_AUTHENTICATOR) private readonly authenticator: ConsoleAuthenticator) {}

  execute(query: GetConsoleSessionQuery): Promise<ConsolePrincipal | null> {
    return this.authenticator.authenticate(query.sessionToken);
  }
}
