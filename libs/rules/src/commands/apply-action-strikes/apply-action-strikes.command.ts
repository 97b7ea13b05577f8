import { Command } from '@nestjs/cqrs';
import type { RecordedEvent } from '#warden/kernel';

/**
 * Applies the strikes of a published action (an ActionCallbackRequested as recorded) to its user
 * and answers the user's count right after it (its callback's `userStrikeCount`), whichever of the
 * strikes reactor and the asker gets to the action first: applied once, the same answer on every
 * re-run. Handled by the enforcement module (declared here so that enforcement depends on the
 * rules engine, not the other way round). Null: no user, or the user cannot be named.
 */
export class ApplyActionStrikesCommand extends Command<number | null> {
  constructor(readonly action: RecordedEvent) {
    super();
  }
}
