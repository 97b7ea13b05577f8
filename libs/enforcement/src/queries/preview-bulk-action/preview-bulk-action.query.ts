import { Query } from '@nestjs/cqrs';

/** How many items of one type (or of all) exist, and how many the bulk action would act on anew. */
export interface BulkActionPreviewCounts {
  /** Unique items named. */
  readonly items: number;
  /** Stored in the organization: what the bulk action acts on. */
  readonly existing: number;
  /** Not stored in the organization (another organization's ids too): never acted on. */
  readonly missing: number;
  /** Existing items with no execution of this action, policies and reason yet. */
  readonly newActions: number;
  /** Existing items executed already with this action, policies and reason: acted on nothing twice. */
  readonly alreadyActioned: number;
}

export interface BulkActionPreview extends BulkActionPreviewCounts {
  /** Items given more than once (each counted and acted on once). */
  readonly duplicates: number;
  /** Per item type, in the order first named. */
  readonly byType: ReadonlyArray<BulkActionPreviewCounts & { readonly typeId: string }>;
}

/** A bulk action request checked and counted, nothing recorded (docs/bulk-actions.md, "Preview"). */
export class PreviewBulkActionQuery extends Query<BulkActionPreview> {
  constructor(
    readonly orgId: string,
    readonly body: Record<string, unknown>,
  ) {
    super();
  }
}
