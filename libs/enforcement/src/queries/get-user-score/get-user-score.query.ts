import { Query } from '@nestjs/cqrs';
import type { ItemIdentifier } from '#warden/ingestion';

/** A user's live score, 1 (worst) to 5 (best); 5 for a user Warden has never seen (GET /api/v1/user_scores). */
export class GetUserScoreQuery extends Query<number> {
  constructor(
    readonly orgId: string,
    readonly user: ItemIdentifier,
  ) {
    super();
  }
}
