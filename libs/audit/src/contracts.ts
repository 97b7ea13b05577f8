/**
 * The audit module's queries other modules ask through the QueryBus, without importing the module
 * itself (it closes review jobs on erasure, so the review module importing its index would be a
 * cycle).
 */
export { ListPublishedActionsQuery, type PublishedActionEntry } from './queries/list-published-actions/list-published-actions.query.js';

// The events it owns, declared once (docs/architecture.md, "Events"); they carry no personal
// fields (a deletion names its subject's ids, counted as opaque), so it declares no personal-data rules.
export type * from './domain/gdpr-deletion.events.js';
export { gdprDeletionStream } from './domain/gdpr-deletion.streams.js';
export type * from './domain/audit-checkpoint.events.js';
