import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';

/**
 * Which of these callback deliveries a viewer without VIEW_CHILD_SAFETY_DATA is not shown: those a
 * child-safety job's decision requested, or what it caused (a strike threshold it crossed), as the
 * audit's item history index marks them. None for a viewer with the permission. Each id is one
 * read by key.
 */
export class FindChildSafetyDeliveriesQuery extends Query<string[]> {
  constructor(
    readonly orgId: string,
    readonly deliveryIds: readonly string[],
    readonly permissions: readonly Permission[],
  ) {
    super();
  }
}
