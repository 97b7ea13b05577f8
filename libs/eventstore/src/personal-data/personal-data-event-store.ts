import { createCipheriv, createDecipheriv } from 'node:crypto';
import { type Json, type JsonObject, type NewEvent, pooledRandomBytes, type RecordedEvent } from '#warden/kernel';
import { EventStoreDecorator, type ReadScope } from '../event-store-decorator.js';
import type { EventStore } from '../event-store.port.js';
import type { PersonalDataPart, PersonalDataPolicy } from './personal-data-policy.js';
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

/** A part's object: what a path leads to, when it is a JSON object. */
function objectAt(data: JsonObject, path: readonly (string | number)[]): JsonObject | undefined {
  let at: unknown = data;
  for (const step of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as { [key: string]: unknown })[step];
  }
  return typeof at === 'object' && at !== null && !Array.isArray(at) ? (at as JsonObject) : undefined;
}

/** A copy of `data` in which the objects along `path` are copies too (the event as given is never changed). */
function copyAlong(data: JsonObject, path: readonly (string | number)[]): { data: JsonObject; target: JsonObject | undefined } {
  const root: JsonObject = { ...data };
  let at: { [key: string]: unknown } | unknown[] = root;
  for (const step of path) {
    const next = (at as { [key: string]: unknown })[step];
    if (typeof next !== 'object' || next === null) return { data: root, target: undefined };
    const copy = Array.isArray(next) ? [...(next as unknown[])] : { ...(next as object) };
    (at as { [key: string]: unknown })[step] = copy;
    at = copy as { [key: string]: unknown } | unknown[];
  }
  return { data: root, target: Array.isArray(at) ? undefined : (at as JsonObject) };
}

/** Associated data of a part's envelope: the event and where the part is, so that an envelope moved elsewhere fails to open. */
const partAad = (eventId: string, path: readonly (string | number)[]) => `${eventId}/${path.join('/')}`;

/**
 * The personal-data codec: a decorator over any EventStore adapter that seals the personal
 * fields of each event with its subject's data key (AES-256-GCM, the event id as associated
 * data) before they reach the log, and opens them on every read. When the key has been
 * forgotten the fields read back as null and the metadata says so; reading never fails.
 *
 * An event may also hold other people's fields (a rule's `parts`: the reasons of the reports a
 * decision names, in a callback about the creator's item). Each part is sealed first, in place,
 * under its own subject's key (its fields null where they were, the envelope beside them), and
 * then sealed again with the event's own fields when it lies inside them: erasing either person
 * makes their text unreadable, whoever else's event copied it.
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

  private async seal(given: NewEvent): Promise<NewEvent> {
    const rule = this.policy.ruleFor(given.type);
    if (!rule) return given;
    const event = rule.parts ? await this.sealParts(given, rule.parts(given)) : given;
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
    const envelope = this.envelope(key, keyId, fields, plain, event.id);
    return { ...event, data: { ...rest, [SEALED_FIELD]: envelope as unknown as JsonObject } };
  }

  /**
   * Seals each part's fields under its subject's key, in place: the fields stay where they were
   * (null), so that the object keeps its keys' order once opened (a callback body is sent as
   * stored). A part whose fields are all null or absent has nothing of anyone's: left as it is
   * (an erased reporter's reason copied after the erasure must not make them a new key).
   */
  private async sealParts(event: NewEvent, parts: readonly PersonalDataPart[]): Promise<NewEvent> {
    let data = event.data;
    const sealed: Array<{ readonly path: PersonalDataPart['path']; readonly subject: string; readonly fields: string[]; readonly plain: JsonObject }> = [];
    for (const part of parts) {
      // The top level holds the event's own envelope: a part is always an object inside `data`.
      if (part.path.length === 0) throw new Error(`A personal-data part of ${event.type} must lie inside data, not be it`);
      const found = objectAt(data, part.path);
      if (!found || SEALED_FIELD in found) continue;
      const fields = part.fields.filter((f) => found[f] !== undefined && found[f] !== null);
      if (fields.length === 0) continue;
      const copied = copyAlong(data, part.path);
      const target = copied.target!;
      const plain: JsonObject = {};
      for (const f of fields) {
        plain[f] = target[f] as Json;
        target[f] = null;
      }
      // Its envelope once the keys are in; meanwhile a later part at the same place sees it sealed.
      target[SEALED_FIELD] = null;
      sealed.push({ path: part.path, subject: part.subject, fields, plain });
      data = copied.data;
    }
    if (sealed.length === 0) return event;
    // The parts' keys together: each look-up waits for its turn of the event loop (SqliteSubjectKeyStore).
    const keys = await Promise.all(sealed.map((part) => this.keys.keyFor(event.metadata.orgId, part.subject)));
    sealed.forEach((part, i) => {
      // Found again: a later part's copies along its own path may have replaced the object.
      objectAt(data, part.path)![SEALED_FIELD] = this.envelope(
        keys[i]!.key,
        keys[i]!.keyId,
        part.fields,
        part.plain,
        partAad(event.id, part.path),
      ) as unknown as JsonObject;
    });
    return { ...event, data };
  }

  private envelope(key: Buffer, keyId: string, fields: readonly string[], plain: JsonObject, aad: string): Sealed {
    const iv = pooledRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([cipher.update(JSON.stringify(plain), 'utf8'), cipher.final()]);
    return { v: 1, keyId, fields, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ct: ct.toString('base64') };
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
    const withParts = events.map((e) => (!wanted || wanted.has(e.type)) && this.policy.ruleFor(e.type)?.parts !== undefined);
    const keyIds = [...new Set(envelopes.flatMap((envelope) => (envelope ? [envelope.keyId] : [])))];
    let opened = events as RecordedEvent[];
    if (keyIds.length > 0) {
      const keys = await this.keys.findMany(keyIds);
      opened = events.map((e, i) => {
        const envelope = envelopes[i];
        return envelope ? this.open(e, envelope, keys.get(envelope.keyId)) : e;
      });
    }
    return withParts.some(Boolean) ? this.openParts(opened, withParts) : opened;
  }

  /** Then the parts inside the opened events (their keys, again, looked up at once). */
  private async openParts(events: RecordedEvent[], withParts: readonly boolean[]): Promise<RecordedEvent[]> {
    const found = events.map((e, i) => {
      const parts = withParts[i] ? this.policy.ruleFor(e.type)?.parts?.(e) : undefined;
      return (parts ?? []).flatMap((part) => {
        const envelope = objectAt(e.data, part.path)?.[SEALED_FIELD] as unknown as Sealed | undefined;
        return envelope ? [{ path: part.path, envelope }] : [];
      });
    });
    const keyIds = [...new Set(found.flat().map((f) => f.envelope.keyId))];
    if (keyIds.length === 0) return events;
    const keys = await this.keys.findMany(keyIds);
    return events.map((event, i) => {
      let data = event.data;
      let redacted = false;
      for (const { path, envelope } of found[i]!) {
        const copied = copyAlong(data, path);
        const target = copied.target!;
        delete target[SEALED_FIELD];
        const key = keys.get(envelope.keyId);
        if (key) Object.assign(target, this.decrypt(key, envelope, partAad(event.id, path)));
        else redacted = true;
        data = copied.data;
      }
      if (data === event.data) return event;
      return { ...event, data, metadata: redacted ? { ...event.metadata, personalDataRedacted: true } : event.metadata };
    });
  }

  private decrypt(key: Buffer, envelope: Sealed, aad: string): JsonObject {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(envelope.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(envelope.ct, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as JsonObject;
  }

  /** The event with its personal fields opened, or nulled (and marked) when the key was forgotten. */
  private open(event: RecordedEvent, envelope: Sealed, key: Buffer | undefined): RecordedEvent {
    const data: JsonObject = { ...event.data };
    delete data[SEALED_FIELD];
    if (!key) {
      for (const f of envelope.fields) data[f] = null;
      return { ...event, data, metadata: { ...event.metadata, personalDataRedacted: true } };
    }
    return { ...event, data: { ...data, ...this.decrypt(key, envelope, event.id) } };
  }
}
