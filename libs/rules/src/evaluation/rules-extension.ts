import type { Signal } from '../domain/evaluation.model.js';

/**
 * How another module extends the rules engine: it exports RULE_SIGNALS (signals the engine
 * registers beside its built-in ones) and may export MEDIA_HASHER (media fetched and hashed before
 * evaluation), PARTIAL_ITEMS (whole items fetched from the customer, partial-items.ts) or
 * USER_STANDING (users' strike counts and scores, user-standing.ts), and the composition root
 * passes that module to `RulesModule.register({ extensions })`. The rules engine never imports
 * its extensions; they import only its contracts (docs/architecture.md, "Ports").
 */
export const RULE_SIGNALS = Symbol('RuleSignals');

export type RuleSignals = readonly Signal[];
