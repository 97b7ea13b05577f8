/**
 * The audit module's queries other modules ask through the QueryBus, without importing the module
 * itself (its index loads Nest and the audit's own dependencies: review's job view only asks for
 * an item's published actions, which deliveries are a child-safety decision's, and which strikes it may show).
 */
export { ListPublishedActionsQuery, type PublishedActionEntry } from './queries/list-published-actions/list-published-actions.query.js';
export { FindChildSafetyDeliveriesQuery } from './queries/find-child-safety-deliveries/find-child-safety-deliveries.query.js';
export { FindShownStrikesQuery, type ListedStrike } from './queries/find-shown-strikes/find-shown-strikes.query.js';

// The events it owns, declared once (docs/architecture.md, "Events"); they carry no personal
// fields, so it declares no personal-data rules.
export type * from './domain/audit-checkpoint.events.js';
