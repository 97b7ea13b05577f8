import { Command } from '@nestjs/cqrs';
import type { OpenedConsoleSession } from '../open-console-session/open-console-session.command.js';

/** Signs in with email and password: a new session, or one 401 for every kind of wrong answer. */
export class PasswordLoginCommand extends Command<OpenedConsoleSession> {
  constructor(
    readonly email: string,
    readonly password: string,
    /** The client's address (per-address throttle, audit). */
    readonly clientAddress: string,
    readonly correlationId: string,
  ) {
    super();
  }
}
