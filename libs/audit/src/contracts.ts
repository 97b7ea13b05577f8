/**
 * The audit module's queries other modules ask through the QueryBus, without importing the module
 * itself (it closes review jobs on erasure, so the review module importing its index would be a
 * cycle).
 */
export { ListPublishedActionsQuery, type PublishedActionEntry } from './queries/list-published-actions/list-published-actions.query.js';
