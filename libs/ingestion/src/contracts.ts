/**
 * The ingestion module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), their stream names (auditors and the legacy endpoint read item
 * streams) and personal-data rules; the module's index re-exports them.
 */
import { subjectField, type PersonalDataRules } from '#warden/kernel';

export type { ItemIdentifier, ItemSubmitted } from './domain/item.events.js';
export { ITEM_SUBMITTED } from './domain/item.events.js';
export type { ContextItem, Reporter, ReportEvent, ReportSubmitted } from './domain/report.events.js';
export { itemStream, reportStream } from './domain/item.streams.js';

export const INGESTION_PERSONAL_DATA: PersonalDataRules = {
  // Item data is what users wrote: sealed under the subject's key from the first event.
  ItemSubmitted: { subject: (e) => e.data['subject'] as string, fields: ['data'] },
  // A report: its reason and context items are what the reporter wrote, sealed under their key.
  ReportSubmitted: { subject: subjectField, fields: ['reason', 'thread', 'additionalItems'] },
};
