import { Query } from '@nestjs/cqrs';
import type { HistoryEntry } from '../../history/history-entry.js';

export interface ItemHistoryPage {
  readonly item: { readonly typeId: string; readonly id: string };
  readonly entries: HistoryEntry[];
  /** The offset of the next page; null at the end, and on a page asked for by `after`. */
  readonly next: number | null;
  /** The log position to pass as `after` for the next page; null at the end. */
  readonly nextAfter: number | null;
}

/** Everything that happened to an item or user of the organization, in log order, a page at a time. */
export class GetItemHistoryQuery extends Query<ItemHistoryPage> {
  constructor(
    readonly orgId: string,
    readonly typeId: string,
    readonly id: string,
    readonly offset: number,
    readonly limit: number,
    /** Personal fields opened; otherwise null, as a forgotten key reads (auditPersonalDataAccess). */
    readonly personalData = true,
    /** The entries after this log position (a page's `nextAfter`), instead of `offset`. */
    readonly after?: number,
  ) {
    super();
  }
}
