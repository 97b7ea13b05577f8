/**
 * The hashing module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), and their personal-data rules; the module's index re-exports them.
 */
import { type PersonalDataRules, subjectField } from '#warden/kernel';

export type { MediaHashed } from './domain/media.events.js';

export const HASHING_PERSONAL_DATA: PersonalDataRules = {
  // What fetching an item's image gave (its URL's path, its hashes) is the item's data: sealed
  // under the item's subject, as its ItemSubmitted's data is. Events before v4 name no subject.
  MediaHashed: { subject: subjectField, fields: ['result'] },
};
