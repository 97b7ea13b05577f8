import type { Signal } from '../domain/evaluation.model.js';

/**
 * How another module extends the rules engine: it exports RULE_SIGNALS (signals the engine
 * registers beside its built-in ones) and may export MEDIA_HASHER (media fetched and hashed before
 * evaluation) or PARTIAL_ITEMS (whole items fetched from the customer, partial-items.ts), and the composition root passes that module to `RulesModule.register({ extensions })`.
 * The rules engine never imports its extensions; they import only its contracts.
 */
export const RULE_SIGNALS = Symbol('RuleSignals');

export type RuleSignals = readonly Signal[];
