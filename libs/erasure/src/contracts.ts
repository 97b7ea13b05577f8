/**
 * The erasure module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), and their stream name; the module's index re-exports them.
 * They carry no personal fields (a deletion names its subject's ids, counted as opaque), so it
 * declares no personal-data rules.
 */
export type * from './domain/gdpr-deletion.events.js';
export { gdprDeletionStream } from './domain/gdpr-deletion.streams.js';
