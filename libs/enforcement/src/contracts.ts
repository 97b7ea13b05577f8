/**
 * The enforcement module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), and their stream names. Other modules' code imports these from
 * `#warden/enforcement/contracts`; the module's index re-exports them. Its events carry no
 * personal fields (user and item ids only), so it declares no personal-data rules.
 *
 * What a strike threshold or an executed action publishes beside its own events are their
 * consumers' contracts: ActionCallbackRequested the callbacks module's, ReviewEnqueueRequested
 * review's.
 */
export type * from './domain/user-strikes.events.js';
export { userStrikesStream } from './domain/user-strikes.streams.js';
export type * from './domain/action-execution.events.js';
export { actionExecutionStream } from './domain/action-execution.streams.js';
export type * from './domain/bulk-action.events.js';
export { bulkActionStream } from './domain/bulk-action.streams.js';
