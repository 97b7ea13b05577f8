import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';

/** An action Warden published (ActionCallbackRequested): by a rule, a decision, a strike threshold or the platform. */
export interface PublishedActionEntry {
  readonly deliveryId: string;
  readonly item: { readonly id: string; readonly typeId: string };
  readonly creator: { readonly id: string; readonly typeId: string } | null;
  readonly actionId: string;
  readonly trigger: string;
  readonly environment: string | null;
  readonly policies: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  readonly rules: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  readonly publishedAt: string;
}

/**
 * The actions published on an item, or on the items of a user (its creator), newest first, at
 * most `limit`, each delivery once (identical content sent again republishes under the same
 * delivery): from the item-history index, each read back from the log. Ids and names only.
 * Without VIEW_CHILD_SAFETY_DATA among the viewer's `permissions`, none that a child-safety job's
 * decision published or caused (a strike threshold it crossed), as Investigate leaves them out.
 */
export class ListPublishedActionsQuery extends Query<PublishedActionEntry[]> {
  constructor(
    readonly orgId: string,
    readonly ref: { readonly id: string; readonly typeId: string },
    readonly limit: number,
    readonly permissions: readonly Permission[],
  ) {
    super();
  }
}
