import type { CallbackItem, ItemIdentifier, JsonBody } from './callback-body.model.js';

export const APPEAL_DECISIONS = ['ACCEPT', 'REJECT'] as const;
/** ACCEPT: appeal granted, the original action was incorrect; REJECT: the original action stands. */
export type AppealDecision = (typeof APPEAL_DECISIONS)[number];

export interface AppealDecisionInput {
  appealId: string;
  item: CallbackItem;
  appealedBy: ItemIdentifier;
  decision: AppealDecision;
  /** Body configured in the appeal configuration form. */
  appealBody: JsonBody;
}

/** The appeal decision callback's body (docs/callbacks.md, "The bodies"), fields in the documented order. */
export interface AppealCallbackBody {
  appealId: string;
  item: CallbackItem;
  appealedBy: ItemIdentifier;
  appealDecision: AppealDecision;
  custom: JsonBody;
}

export function buildAppealCallbackBody(input: AppealDecisionInput): AppealCallbackBody {
  return {
    appealId: input.appealId,
    item: { id: input.item.id, typeId: input.item.typeId, typeName: input.item.typeName },
    appealedBy: { id: input.appealedBy.id, typeId: input.appealedBy.typeId },
    appealDecision: input.decision,
    custom: { ...input.appealBody },
  };
}
