/**
 * The enforcement module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), their stream names and their personal-data rules. Other
 * modules' code imports these from `#warden/enforcement/contracts`; the module's index re-exports
 * them. Its events carry user and item ids only, but for one personal field: the email of the
 * console user who asked for a bulk action (below).
 *
 * What a strike threshold or an executed action publishes beside its own events are their
 * consumers' contracts: ActionCallbackRequested the callbacks module's, ReviewEnqueueRequested
 * review's.
 */
import { consoleUserParts, type PersonalDataRules } from '#warden/kernel';

export type * from './domain/user-strikes.events.js';
export { userStrikesStream } from './domain/user-strikes.streams.js';
export type * from './domain/action-execution.events.js';
export { actionExecutionStream } from './domain/action-execution.streams.js';
export type * from './domain/bulk-action.events.js';
export { bulkActionStream } from './domain/bulk-action.streams.js';

/**
 * A bulk action names the manager who asked with their email (its executions' callbacks send it as
 * `actorEmail`): the email is that console user's, sealed under their own key as review seals a
 * deciding moderator's, so that erasing their console account erases this copy too (docs/gdpr.md).
 * The event has no subject of its own: nothing else in it is personal.
 */
export const ENFORCEMENT_PERSONAL_DATA: PersonalDataRules = {
  BulkActionRequested: {
    subject: () => undefined,
    fields: [],
    parts: (e) => consoleUserParts((e.data['requester'] as { userId?: unknown } | null | undefined)?.userId, ['requester'], 'email'),
  },
};
