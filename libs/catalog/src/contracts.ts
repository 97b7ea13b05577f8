/**
 * The catalog's framework-free contracts: the model of an organization's configuration, its
 * constants and its pure validators. Other modules' `domain/` code imports these from
 * `#warden/catalog/contracts`, which reaches no Nest, database or network code (checked by
 * dependency-cruiser); everything else imports `#warden/catalog`, which re-exports them.
 */
export type * from './domain/catalog.model.js';
export {
  BUILTIN_ACTION_IDS,
  CHILD_SAFETY_QUEUE_ID,
  MAX_AUTO_CLOSE_DAYS,
  MAX_LOCK_TIMEOUT_SECONDS,
  CHILD_SAFETY_QUEUE_NAME,
  PENALTIES,
  QUEUE_ORDERS,
  REPORT_INPUTS,
  RULE_STATUSES,
} from './domain/catalog.model.js';
export { BLUR_LEVELS, DEFAULT_SCORE_SETTINGS, DEFAULT_TRANSPARENCY_SETTINGS, DEFAULT_WELLNESS_SETTINGS, MEDIA_LOADING } from './domain/catalog.model.js';
export * from './domain/dsa-vocabulary.js';
export { transparencyWarnings } from './domain/org-config/dsa-mapping.section-parser.js';
export { isIsoDateTime, parseIsoInstant, utcIsoOf, validateItem, type ItemProblem, type SubmittedItem } from './domain/item-validation.js';
export { parseIsoDateTime, type IsoDateTime } from './domain/iso-datetime.js';
// The queues jobs go to: the declared ones and the built-in ones beside (read by routing and review alike).
export { DEFAULT_QUEUE_ID, defaultQueueOf, effectiveQueues } from './domain/effective-queues.js';
export {
  checkLenientItems,
  checkList,
  checkUserFields,
  isJsonObject,
  itemSizeProblem,
  jsonBytes,
  namedTypeIds,
  rejectionOf,
  type InputCatalog,
  type InputCheck,
  type ItemListLimits,
  type LenientItem,
  type ProblemSink,
} from './domain/customer-input-checks.js';
export { parseOrgConfig, problemCount, type ConfigProblem, type ParseOptions, type ParseResult } from './domain/org-config.parser.js';
export { parseCandidateRule, type StoredCatalog } from './domain/candidate-rule.js';
// The events it owns, declared once (docs/architecture.md, "Events"); secrets in them are sealed by the
// catalog itself (docs/configuration.md), so it declares no personal-data rules.
export type * from './domain/catalog.events.js';
export { CATALOG_EVENT_TYPES } from './domain/catalog.events.js';
export { hashBankDecider, type HashBankCommand, type HashBankState } from './domain/hash-bank.decider.js';
export { parseHashLines } from './domain/hash-lines.js';
export { hashBankStream } from './domain/catalog.streams.js';
