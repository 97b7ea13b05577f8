import type { JsonObject, NewEvent } from '#warden/kernel';

/**
 * Which fields of an event type are personal data and whose they are. Modules register a rule
 * for every event type that carries personal data, before the first such event is written.
 */
export interface PersonalDataRule {
  /** The subject (user) the personal fields belong to; undefined when the event has none. */
  subject(event: NewEvent<JsonObject>): string | undefined;
  /** Top-level fields of `data` that are personal. */
  readonly fields: readonly string[];
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
