import type { JsonObject, NewEvent } from '#warden/kernel';

/**
 * An object inside an event's data that holds another person's fields than the event's subject
 * (a reporter's reason copied into a decision about someone else's item): sealed under that
 * person's key, in place, so that erasing them reaches this copy too (docs/gdpr.md).
 */
export interface PersonalDataPart {
  /** Where the object is inside `data`: keys and array indices, from the top (never empty: the top level holds the event's own envelope). */
  readonly path: readonly (string | number)[];
  /** Whose the fields are. */
  readonly subject: string;
  /** Fields of that object that are personal. */
  readonly fields: readonly string[];
}

/**
 * Which fields of an event type are personal data and whose they are. Modules register a rule
 * for every event type that carries personal data, before the first such event is written.
 */
export interface PersonalDataRule {
  /** The subject (user) the personal fields belong to; undefined when the event has none. */
  subject(event: NewEvent<JsonObject>): string | undefined;
  /** Top-level fields of `data` that are personal. */
  readonly fields: readonly string[];
  /**
   * Other people's fields inside the event (each sealed under their own key before the event's
   * own fields are sealed around them). Called on the event as written, and on the event as read
   * once its own fields are opened, to find the parts again: the paths must not depend on the
   * parts' sealed fields.
   */
  parts?(event: { readonly data: JsonObject }): readonly PersonalDataPart[];
}

export class PersonalDataPolicy {
  private readonly rules = new Map<string, PersonalDataRule>();

  register(eventType: string, rule: PersonalDataRule): this {
    if (this.rules.has(eventType)) throw new Error(`Personal data rule for ${eventType} registered twice`);
    this.rules.set(eventType, rule);
    return this;
  }

  ruleFor(eventType: string): PersonalDataRule | undefined {
    return this.rules.get(eventType);
  }
}
