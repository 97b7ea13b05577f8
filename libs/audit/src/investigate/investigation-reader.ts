import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetCatalogSettingsQuery, GetLiveEntitiesQuery } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { auditPersonalDataAccess, type Permission } from '#warden/identity/contracts';
import { idProblem, invalidInput, type RecordedEvent } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import { EVENT_STORE, READ_STORE, STORAGE, type Storage } from '#warden/storage';
import { readHistoryEvent, readStoredStream } from '../history/history-events.js';
import { ITEM_HISTORY, type HistoryRef, type ItemHistoryDoc } from '../history/item-history.projection.js';

/** What every Investigate page shows items with: their type's fields (for media), the wellness defaults. */
export interface InvestigationFrame {
  readonly personalData: boolean;
  readonly itemType: { id: string; name: string; kind: string; fields: Array<{ name: string; type: string; array: boolean; roles: string[] }> } | null;
  readonly wellness: { blur: number; greyscale: boolean; breakAfterItems: number };
}

/**
 * The reads behind Investigate (docs/console.md, "Investigate"): the newest entries of the item
 * history index (`audit_item_history`) for an item or a user, of one event type or of all, each
 * query bounded by a limit, and the events they point at, read once per request. Nothing here
 * grows with the length of a history: every page asks the index for its newest few by the
 * `(orgId, typeId, itemId, type, position)` and `(orgId, typeId, itemId, position)` indexes.
 */
@Injectable()
export class InvestigationReader {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(STORAGE) private readonly storage: Storage,
    private readonly queries: QueryBus,
  ) {}

  /** 400 with a pointer for an id Warden could never have stored (docs/api.md, "Errors"). */
  static checkIds(ids: { readonly [field: string]: string }): void {
    const problems = Object.entries(ids).flatMap(([field, value]) => {
      const problem = idProblem(value);
      return problem ? [{ title: 'Invalid id', pointer: `/${field}`, detail: problem }] : [];
    });
    if (problems.length > 0) throw invalidInput(...problems);
  }

  /** Personal fields as the audit histories open them, and for moderator managers as the job view does (VIEW_MRT). */
  async frame(orgId: string, typeId: string, permissions: readonly Permission[]): Promise<InvestigationFrame> {
    const [settings, types] = await Promise.all([
      this.queries.execute(new GetCatalogSettingsQuery(orgId, 'settings')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType')),
    ]);
    const personalData = permissions.includes('VIEW_MRT') || auditPersonalDataAccess(permissions, settings?.auditorPersonalData === true).read;
    const type = types.find((t) => t.id === typeId);
    const wellness = settings?.wellness;
    return {
      personalData,
      itemType: type
        ? {
            id: type.id,
            name: type.name,
            kind: type.kind,
            fields: type.fields.map((f) => ({ name: f.name, type: f.type, array: f.array, roles: rolesOf(type.roles, f.name) })),
          }
        : null,
      wellness: {
        blur: wellness?.blur ?? 2,
        greyscale: wellness?.greyscale ?? true,
        breakAfterItems: wellness?.breakAfterItems ?? 0,
      },
    };
  }

  /** The newest `limit` index entries of a subject (of one event type, or of all), newest first, before a log position. */
  newest(orgId: string, ref: HistoryRef, type: string | null, limit: number, before?: number): Promise<ItemHistoryDoc[]> {
    const filter: Record<string, string | { lt: number }> = { orgId, typeId: ref.typeId, itemId: ref.id };
    if (type !== null) filter['type'] = type;
    if (before !== undefined) filter['position'] = { lt: before };
    return this.readStore.find<ItemHistoryDoc & Record<string, never>>(ITEM_HISTORY, filter, {
      sort: [{ field: 'position', direction: 'desc' }],
      limit,
    });
  }

  /** The events the entries point at, in the entries' order; one read each, shared within a request. */
  async read(docs: readonly ItemHistoryDoc[], personalData: boolean, cache: Map<number, Promise<RecordedEvent | undefined>>): Promise<RecordedEvent[]> {
    const events = await Promise.all(
      docs.map((doc) => {
        let event = cache.get(doc.position);
        if (!event) cache.set(doc.position, (event = readHistoryEvent(this.events, this.storage, doc, personalData)));
        return event;
      }),
    );
    return events.filter((e): e is RecordedEvent => e !== undefined);
  }

  /** A whole stream that holds nothing personal (a callback delivery's attempts), as stored, upcast. */
  stream(stream: string): Promise<RecordedEvent[]> {
    return readStoredStream(this.storage, stream);
  }

  /** The first event of a stream, personal fields closed: what a report, a job or a delivery is about. */
  async first(stream: string): Promise<RecordedEvent | undefined> {
    return (await readStoredStream(this.storage, stream, 1))[0];
  }
}

/** The roles a field plays in its type (creator, createdAt, thread …), as the job view names them. */
function rolesOf(roles: { readonly [role: string]: unknown } | undefined, field: string): string[] {
  return Object.entries(roles ?? {}).flatMap(([role, name]) => (name === field ? [role] : []));
}
