import { Query } from '@nestjs/cqrs';
import type { ItemIdentifier } from '#warden/ingestion';
import type { UserStrikeHistory } from '../../standing/user-standing.ports.js';

/**
 * A user's strikes: the live count, the window and the newest `limit` applications (what the
 * console's Investigate page shows as strikes over time). Null: the user cannot be named.
 */
export class GetUserStrikesQuery extends Query<UserStrikeHistory | null> {
  constructor(
    readonly orgId: string,
    readonly user: ItemIdentifier,
    readonly limit: number,
  ) {
    super();
  }
}
