/**
 * The appeals module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), their stream names and personal-data rules; the module's
 * index re-exports them.
 */
import { type PersonalDataRules, subjectField } from '#warden/kernel';

export type { AppealSubmitted, AppealDecided, AppealEvent } from './domain/appeal.events.js';
export { appealStream } from './domain/appeal.streams.js';

export const APPEALS_PERSONAL_DATA: PersonalDataRules = {
  // Who appealed, what they wrote and what they sent of their content: sealed under their key.
  AppealSubmitted: { subject: subjectField, fields: ['appealedBy', 'appealReason', 'actionedItemData', 'additionalItems'] },
};
