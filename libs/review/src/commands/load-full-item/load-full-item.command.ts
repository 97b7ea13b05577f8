import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { Permission } from '#warden/identity/contracts';

/** One identifier's outcome: fetched now, answered from the cache, or failed with its reason. */
export interface FullItemOutcome {
  id: string;
  typeId: string;
  /** The RELATED_ITEM field of the job's item that names it; null for the job's item itself. */
  field: string | null;
  status: 'fetched' | 'cached' | 'failed';
  /** The item version the whole item was recorded as (source partial-fetch); null when it failed. */
  version: number | null;
  typeVersion: string | null;
  /** The whole item's data (personal data, as the job view shows it to the viewer); null when it failed. */
  data: { [field: string]: unknown } | null;
  reason: string | null;
}

export interface FullItemReport {
  item: FullItemOutcome;
  /** Related items (RELATED_ITEM fields, the creator among them) Warden had never received, fetched with it. */
  related: FullItemOutcome[];
}

/**
 * The console's "load the full item" (docs/partial-items.md): the job's item, and the related items
 * Warden never received, fetched from the organization's partial-items endpoint and recorded as
 * item versions; the job view then shows them.
 */
export class LoadFullItemCommand extends Command<FullItemReport> {
  constructor(
    readonly orgId: string,
    readonly jobId: string,
    readonly viewer: { readonly permissions: readonly Permission[] },
    readonly context: CommandContext,
  ) {
    super();
  }
}
