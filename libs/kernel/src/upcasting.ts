import type { EventMetadata, JsonObject, RecordedEvent } from './events.js';

/**
 * Turns the data of one event type from `fromVersion` into `fromVersion + 1`. Old events are
 * upcast on read, never rewritten (docs/architecture.md, "Write side"), so an upcaster must accept every event
 * ever written at its version.
 */
export interface Upcaster {
  readonly eventType: string;
  readonly fromVersion: number;
  upcast(data: JsonObject, metadata: EventMetadata): JsonObject;
}

/**
 * The one registry of event schema versions, keyed by (event type, schemaVersion). Writers stamp
 * `currentVersion(type)`; every read path hands its events through `upcast`, so handlers,
 * projections, reactors and exports see only the current shape of each type.
 */
export class UpcasterRegistry {
  private readonly byKey = new Map<string, Upcaster>();
  private readonly latest = new Map<string, number>();

  register(...upcasters: readonly Upcaster[]): void {
    for (const u of upcasters) {
      if (!Number.isInteger(u.fromVersion) || u.fromVersion < 1) {
        throw new Error(`Upcaster for ${u.eventType}: fromVersion must be an integer >= 1`);
      }
      const k = key(u.eventType, u.fromVersion);
      if (this.byKey.has(k)) throw new Error(`Upcaster for ${u.eventType} v${u.fromVersion} registered twice`);
      this.byKey.set(k, u);
      this.latest.set(u.eventType, Math.max(this.latest.get(u.eventType) ?? 1, u.fromVersion + 1));
    }
    for (const [type, current] of this.latest) {
      for (let v = 1; v < current; v++) {
        if (!this.byKey.has(key(type, v))) throw new Error(`Upcasters for ${type} skip v${v}: every version up to v${current} needs one`);
      }
    }
  }

  /** The version writers record for this type: 1 until an upcaster names an older one. */
  currentVersion(eventType: string): number {
    return this.latest.get(eventType) ?? 1;
  }

  /** The event in its type's current shape; the same object when it already is. */
  upcast<E extends RecordedEvent>(event: E): E {
    const current = this.currentVersion(event.type);
    let version = event.metadata.schemaVersion ?? 1;
    // A newer version than this process knows was written by a newer release (a rolling
    // upgrade): it is handed on as it is rather than refused.
    if (version >= current) return event;
    let data = event.data as JsonObject;
    for (; version < current; version++) {
      data = this.byKey.get(key(event.type, version))!.upcast(data, event.metadata);
    }
    return { ...event, data, metadata: { ...event.metadata, schemaVersion: current } };
  }

  /** The batch itself when none of it is old: reads of current events copy nothing. */
  upcastAll<E extends RecordedEvent>(events: readonly E[]): E[] {
    const old = (e: E) => (e.metadata.schemaVersion ?? 1) < this.currentVersion(e.type);
    return this.latest.size === 0 || !events.some(old) ? (events as E[]) : events.map((e) => this.upcast(e));
  }
}

const key = (type: string, version: number) => `${type}\u0000${version}`;
