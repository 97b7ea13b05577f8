/**
 * The ingestion module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), their stream names (auditors and the legacy endpoint read item
 * streams) and personal-data rules; the module's index re-exports them.
 */
import type { PersonalDataRules } from '#warden/kernel';

export type { ItemIdentifier, ItemSubmitted } from './domain/item.events.js';
export { ITEM_SUBMITTED } from './domain/item.events.js';
export { itemStream } from './domain/item.streams.js';

export const INGESTION_PERSONAL_DATA: PersonalDataRules = {
  // Item data is what users wrote: sealed under the subject's key from the first event.
  ItemSubmitted: { subject: (e) => e.data['subject'] as string, fields: ['data'] },
};
