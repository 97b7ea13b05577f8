import type { SignalRegistry } from '../signal-registry.js';
import { creatorSubmissionCountSignal } from './creator-submission-count.signal.js';
import { geoWithinSignal } from './geo-within.signal.js';
import { httpSignal } from './http.signal.js';
import { textBankSignal } from './text-bank.signal.js';
import { textContainsSignal } from './text-contains.signal.js';
import { textMatchesRegexSignal } from './text-matches-regex.signal.js';
import { userStrikeCountSignal } from './user-strike-count.signal.js';
import { userScoreSignal } from './user-score.signal.js';

export const BUILTIN_SIGNALS = [
  textContainsSignal,
  textMatchesRegexSignal,
  textBankSignal,
  geoWithinSignal,
  creatorSubmissionCountSignal,
  httpSignal,
  userStrikeCountSignal,
  userScoreSignal,
] as const;

/** Registers the signals that need nothing beyond the SignalContext; returns the registry. */
export function registerBuiltinSignals(registry: SignalRegistry): SignalRegistry {
  for (const signal of BUILTIN_SIGNALS) registry.register(signal);
  return registry;
}
