import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '#warden/eventstore';
import { itemVersionAt, type ItemVersion, latestItemVersion } from '#warden/ingestion';
import { EVENT_STORE } from '#warden/storage';
import type { DecidedItem } from './domain/decision-effects.js';
import type { JobItem } from './domain/review-job.events.js';

const asDecided = (v: ItemVersion): DecidedItem => ({
  version: v.version,
  data: v.data,
  creator: v.creator,
  typeVersion: v.typeVersion,
  typeSchemaVariant: v.typeSchemaVariant,
  source: v.source,
});

/**
 * An item's versions as submitted (personal data opened), read through ingestion's reader: what
 * a claim shows and what a decision is made on (versions are the stream's revisions, from 0).
 */
@Injectable()
export class ItemVersions {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  /** One version; null when the item has no such version. */
  async at(orgId: string, item: Pick<JobItem, 'id' | 'typeId'>, version: number): Promise<DecidedItem | null> {
    const found = await itemVersionAt(this.events, orgId, item, version);
    return found && asDecided(found);
  }

  /** The newest version (one event read, however many versions the item has). */
  async latest(orgId: string, item: Pick<JobItem, 'id' | 'typeId'>): Promise<DecidedItem | null> {
    const found = await latestItemVersion(this.events, orgId, item);
    return found && asDecided(found);
  }
}
