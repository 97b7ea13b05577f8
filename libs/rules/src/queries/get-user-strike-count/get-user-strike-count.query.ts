import { Query } from '@nestjs/cqrs';
import type { RecordedEvent } from '#warden/kernel';

/**
 * A user's strike count, answered by the enforcement module (declared here so that enforcement
 * depends on the rules engine, not the other way round). Without `after`: the live count within
 * the strike window (the USER_STRIKE_COUNT signal). With `after`, an ActionCallbackRequested as
 * recorded: the count right after that action's strikes (its callback's `userStrikeCount`),
 * whichever of the strike reactor and the asker gets to the action first. Null: the user cannot
 * be named (no valid identifier).
 */
export class GetUserStrikeCountQuery extends Query<number | null> {
  constructor(
    readonly orgId: string,
    readonly user: { readonly id: string; readonly typeId: string },
    readonly after?: RecordedEvent,
  ) {
    super();
  }
}
