import type { PersonalDataRule, PersonalDataRules } from '#warden/kernel';

/** The rule types are the kernel's, so that each module declares its rules in its framework-free contracts. */
export type { PersonalDataPart, PersonalDataRule } from '#warden/kernel';

export class PersonalDataPolicy {
  private readonly rules = new Map<string, PersonalDataRule>();

  register(eventType: string, rule: PersonalDataRule): this {
    if (this.rules.has(eventType)) throw new Error(`Personal data rule for ${eventType} registered twice`);
    this.rules.set(eventType, rule);
    return this;
  }

  /** A module's rules, as its contracts declare them (each event type once, by its owner). */
  registerAll(rules: PersonalDataRules): this {
    for (const [eventType, rule] of Object.entries(rules)) this.register(eventType, rule);
    return this;
  }

  ruleFor(eventType: string): PersonalDataRule | undefined {
    return this.rules.get(eventType);
  }
}
