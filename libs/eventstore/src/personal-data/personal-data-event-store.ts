import { createCipheriv, createDecipheriv } from 'node:crypto';
import { type Json, type JsonObject, type NewEvent, pooledRandomBytes, type RecordedEvent } from '#warden/kernel';
import { EventStoreDecorator, type ReadScope } from '../event-store-decorator.js';
import type { EventStore } from '../event-store.port.js';
import type { PersonalDataPolicy } from './personal-data-policy.js';
import type { SubjectKeyStore } from './subject-key-store.port.js';

/** Where the sealed personal fields live inside a stored event's data. */
export const SEALED_FIELD = '__personal';

interface Sealed {
  readonly v: 1;
  readonly keyId: string;
  readonly fields: readonly string[];
  readonly iv: string;
  readonly tag: string;
  readonly ct: string;
}

/**
 * The personal-data codec: a decorator over any EventStore adapter that seals the personal
 * fields of each event with its subject's data key (AES-256-GCM, the event id as associated
 * data) before they reach the log, and opens them on every read. When the key has been
 * forgotten the fields read back as null and the metadata says so; reading never fails.
 */
export class PersonalDataEventStore extends EventStoreDecorator {
  constructor(
    inner: EventStore,
    private readonly policy: PersonalDataPolicy,
    private readonly keys: SubjectKeyStore,
  ) {
    super(inner);
  }

  protected onAppend(events: readonly NewEvent[]): Promise<NewEvent[]> {
    return Promise.all(events.map((e) => this.seal(e)));
  }

  /** A reader that never looks at personal fields gets them sealed. */
  protected onRead(events: readonly RecordedEvent[], scope: ReadScope): Promise<RecordedEvent[]> | RecordedEvent[] {
    return scope.personalData === false ? (events as RecordedEvent[]) : this.openAll(events, scope.eventTypes);
  }

  private async seal(event: NewEvent): Promise<NewEvent> {
    const rule = this.policy.ruleFor(event.type);
    if (!rule) return event;
    const subject = rule.subject(event);
    const fields = rule.fields.filter((f) => f in event.data);
    if (subject === undefined || fields.length === 0) return event;
    const { keyId, key } = await this.keys.keyFor(event.metadata.orgId, subject);
    const plain: JsonObject = {};
    const rest: JsonObject = { ...event.data };
    for (const f of fields) {
      plain[f] = event.data[f] as Json;
      delete rest[f];
    }
    const iv = pooledRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(event.id));
    const ct = Buffer.concat([cipher.update(JSON.stringify(plain), 'utf8'), cipher.final()]);
    const envelope: Sealed = {
      v: 1,
      keyId,
      fields,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      ct: ct.toString('base64'),
    };
    return { ...event, data: { ...rest, [SEALED_FIELD]: envelope as unknown as JsonObject } };
  }

  /**
   * Opens only what the reader will look at, and only event types the policy seals: looking for
   * an envelope means parsing the event, and most events (evaluation records of kilobytes) have
   * none. The keys of a whole batch are looked up at once. Decryption is most of a subscription's
   * cost.
   */
  private async openAll(events: readonly RecordedEvent[], types?: readonly string[]): Promise<RecordedEvent[]> {
    const wanted = types ? new Set(types) : undefined;
    const envelopes = events.map((e) =>
      (wanted && !wanted.has(e.type)) || !this.policy.ruleFor(e.type) ? undefined : (e.data[SEALED_FIELD] as unknown as Sealed | undefined),
    );
    const keyIds = [...new Set(envelopes.flatMap((envelope) => (envelope ? [envelope.keyId] : [])))];
    if (keyIds.length === 0) return events as RecordedEvent[];
    const keys = await this.keys.findMany(keyIds);
    return events.map((e, i) => {
      const envelope = envelopes[i];
      return envelope ? this.open(e, envelope, keys.get(envelope.keyId)) : e;
    });
  }

  /** The event with its personal fields opened, or nulled (and marked) when the key was forgotten. */
  private open(event: RecordedEvent, envelope: Sealed, key: Buffer | undefined): RecordedEvent {
    const data: JsonObject = { ...event.data };
    delete data[SEALED_FIELD];
    if (!key) {
      for (const f of envelope.fields) data[f] = null;
      return { ...event, data, metadata: { ...event.metadata, personalDataRedacted: true } };
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64'));
    decipher.setAAD(Buffer.from(event.id));
    decipher.setAuthTag(Buffer.from(envelope.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(envelope.ct, 'base64')), decipher.final()]);
    return { ...event, data: { ...data, ...(JSON.parse(plain.toString('utf8')) as JsonObject) } };
  }
}
