/**
 * The Insights module's framework-free contracts: it owns no events (its projection reads the
 * events of the modules that own them, docs/architecture.md, "Events"); what it answers.
 */
export type { InsightsReport, Named, Outcome } from './queries/get-insights/get-insights.query.js';
