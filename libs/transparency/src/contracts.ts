/**
 * The transparency module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), and the statement of reasons as the Transparency Database
 * takes it; the module's index re-exports them. Its events carry statements, which hold no
 * personal data (docs/transparency.md), so it declares no personal-data rules.
 */
export type * from './domain/statement-batch.events.js';
export { STATEMENT_BATCH_EVENT_TYPES } from './domain/statement-batch.events.js';
export type { DatabaseStatement } from './domain/statement-of-reasons.js';
