import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';

/** A strike application as enforcement lists it (USER_STRIKES, GetUserStrikesQuery). */
export interface ListedStrike {
  readonly strikes: number;
  readonly countAfter: number;
  readonly actionId: string;
  readonly item: { readonly id: string; readonly typeId: string };
  readonly appliedAt: string;
}

/**
 * Which of a user's strike applications a viewer is shown, as Investigate shows them: all with
 * VIEW_CHILD_SAFETY_DATA; without it not those a child-safety decision applied (or a threshold it
 * crossed), as the audit's item history index marks them, and none with its count after it
 * (`countAfter` null: it would tell when one not shown came). One read of the user's index.
 */
export class FindShownStrikesQuery<T extends ListedStrike = ListedStrike> extends Query<Array<Omit<T, 'countAfter'> & { countAfter: number | null }>> {
  constructor(
    readonly orgId: string,
    readonly user: { readonly id: string; readonly typeId: string },
    readonly entries: readonly T[],
    readonly permissions: readonly Permission[],
  ) {
    super();
  }
}
