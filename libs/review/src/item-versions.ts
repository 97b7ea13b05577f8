import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '#warden/eventstore';
import { itemStream, type ItemSubmitted } from '#warden/ingestion';
import type { RecordedEvent } from '#warden/kernel';
import { EVENT_STORE } from '#warden/storage';
import type { DecidedItem } from './domain/decision-effects.js';
import type { JobItem } from './domain/review-job.events.js';

const asDecided = (event: RecordedEvent): DecidedItem => {
  const data = event.data as unknown as ItemSubmitted['data'];
  return {
    version: event.revision,
    data: data.data ?? null,
    creator: data.creator ? { id: data.creator.id, typeId: data.creator.typeId } : null,
    typeVersion: data.typeVersion ?? null,
    typeSchemaVariant: data.typeSchemaVariant ?? 'original',
    source: data.source,
  };
};

/**
 * An item's versions as submitted (personal data opened), read from its stream: what a claim
 * shows and what a decision is made on (versions are the stream's revisions, from 0).
 */
@Injectable()
export class ItemVersions {
  constructor(@Inject(EVENT_STORE) private readonly events: EventStore) {}

  /** One version; null when the item has no such version. */
  async at(orgId: string, item: Pick<JobItem, 'id' | 'typeId'>, version: number): Promise<DecidedItem | null> {
    const [event] = await this.events.readStream(itemStream(orgId, item.typeId, item.id), { fromRevision: version, maxCount: 1 });
    return event && event.type === 'ItemSubmitted' && event.revision === version ? asDecided(event) : null;
  }

  /** The newest version, read from `from` on (a job's requested version: the item's stream is read from there). */
  async latest(orgId: string, item: Pick<JobItem, 'id' | 'typeId'>, from = 0): Promise<DecidedItem | null> {
    const recorded = await this.events.readStream(itemStream(orgId, item.typeId, item.id), { fromRevision: from });
    const last = recorded.filter((e) => e.type === 'ItemSubmitted').at(-1);
    if (!last) return from > 0 ? this.latest(orgId, item, 0) : null;
    return asDecided(last);
  }
}
