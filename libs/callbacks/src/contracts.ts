/**
 * The callbacks module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), and the personal-data rules of those events. Other modules'
 * code (their `domain/` too) imports these from `#warden/callbacks/contracts`, which reaches no
 * Nest, database or network code; the module's index re-exports them.
 *
 * ActionCallbackRequested is published by the rules engine, review, and enforcement, and owned
 * here, by the module that delivers it: its publishers build their variant of this one contract.
 */
import { consoleUserParts, reportReasonParts, subjectField, type PersonalDataRules } from '#warden/kernel';

export type * from './domain/action-callback.events.js';
export type * from './domain/callback-delivery.events.js';
export { CALLBACK_DELIVERY_EVENT_TYPES } from './domain/callback-delivery.events.js';
export type * from './domain/signing-key.events.js';
// The bodies it sends (docs/callbacks.md).
export type { ActionCallbackBody, ActionCallbackTrigger, DecisionTrigger, RuleTrigger, StrikeThresholdTrigger } from './domain/action-callback-body.js';
export { APPEAL_DECISIONS, type AppealCallbackBody, type AppealDecision, type AppealDecisionInput } from './domain/appeal-callback-body.js';
export type * from './domain/callback-body.model.js';

/**
 * A decision's callback carries the merged reports and the moderator (a rule's, a threshold's and
 * an executed action's carry no subject and neither: not sealed). Each report's reason is its
 * reporter's, sealed again under their key inside, and the moderator's email is the console
 * user's, sealed again under theirs: erasing the reporter, or the moderator's console account,
 * erases this copy too (docs/gdpr.md). A delivery's body that carries what users wrote (report
 * reasons) is sealed under its subject's key, each reason once more under its reporter's inside it,
 * and a decision's `actorEmail` under the moderator's (`actorUserId`).
 */
export const CALLBACKS_PERSONAL_DATA: PersonalDataRules = {
  ActionCallbackRequested: {
    subject: subjectField,
    fields: ['reportHistory', 'actor', 'actorEmail'],
    parts: (e) => [
      ...reportReasonParts(e.data['reportHistory'], ['reportHistory']),
      ...consoleUserParts((e.data['actor'] as { userId?: unknown } | null | undefined)?.userId, ['actor'], 'email'),
    ],
  },
  CallbackDeliveryRequested: {
    subject: subjectField,
    fields: ['body'],
    parts: (e) => {
      const custom = (e.data['body'] as { custom?: { reportHistory?: unknown } } | null | undefined)?.custom;
      return [
        ...reportReasonParts(custom?.reportHistory, ['body', 'custom', 'reportHistory']),
        ...consoleUserParts(e.data['actorUserId'], ['body'], 'actorEmail'),
      ];
    },
  },
};
