import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import type { ReviewEnqueueRequested } from '#warden/review/contracts';
import type { ActionDefinition } from '#warden/catalog/contracts';
import { type Decider, deterministicId } from '#warden/kernel';
import { encodeEvaluation, type Evaluation, type EvaluationEvent, type PublishedAction } from './evaluation.events.js';

/** Records an item version's evaluation and publishes its actions. */
export interface RecordEvaluation {
  readonly type: 'RecordEvaluation';
  readonly orgId: string;
  /** The run: its environment, and for a retroaction the rules it ran (`RETROACTION:r1`). */
  readonly run: string;
  /**
   * The identity of the item's content (item-content.ts: its digest and the version where that
   * content began). The delivery and review job ids derive from it, not from the version: a
   * re-submission of the latest content (a client's retry) publishes the very same ids, so its
   * callback is recorded once (one delivery stream per id) and sent once; content that changed, or
   * came back after an edit, acts again. Customers see the ids.
   */
  readonly content: string;
  /**
   * The key recorded with the evaluation for the next version's to start from (ContentKeyReader):
   * the environment's own run of a submitted version only; absent elsewhere.
   */
  readonly chainedContent?: string;
  /** Its environment decides the publications' environment too. */
  readonly evaluation: Evaluation;
  /** The item's creator, named in action callbacks. */
  readonly creator: { id: string; typeId: string } | null;
  /** The catalog's actions: a customer-defined action's callback carries the action's body. */
  readonly actions: ReadonlyMap<string, Pick<ActionDefinition, 'body'>>;
}

export type ItemEvaluationCommand = RecordEvaluation;

export interface ItemEvaluationState {
  readonly recorded: boolean;
}

/**
 * One evaluation of an item version: recorded once, in one append of ItemEvaluated (always the
 * stream's first event) and one publication per published action. A second record of the same
 * evaluation — a reactor re-run, the legacy sync path racing the worker — decides nothing.
 */
export const itemEvaluationDecider: Decider<ItemEvaluationCommand, ItemEvaluationState, EvaluationEvent> = {
  eventTypes: { ItemEvaluated: true, ActionCallbackRequested: true, ReviewEnqueueRequested: true },
  initialState: { recorded: false },

  decide(command, state) {
    if (state.recorded) return [];
    const recorded = encodeEvaluation(command.evaluation);
    const events: EvaluationEvent[] = [{ type: 'ItemEvaluated', data: command.chainedContent ? { ...recorded, content: command.chainedContent } : recorded }];
    if (command.evaluation.actions.length === 0) return events;
    for (const action of command.evaluation.actions) events.push(publication(command, action));
    return events;
  },

  evolve(state, event) {
    return event.type === 'ItemEvaluated' ? { recorded: true } : state;
  },
};

/** The id of the evaluation stream's event at `index`: a re-run appends the very same events. */
export const evaluationEventId = (streamName: string, index: number) => deterministicId('evaluation', streamName, String(index));

/**
 * What identifies one action on one content of an item in one run: organization, item type and
 * id, content (digest and the version it began), run, action. Ids published before this derivation (from the evaluation
 * stream, hence the version) stay in the log as they are.
 */
const publicationKey = (command: RecordEvaluation, actionId: string) => {
  const { item } = command.evaluation;
  return [command.orgId, item.typeId, item.id, command.content, command.run, actionId];
};

function publication(command: RecordEvaluation, action: PublishedAction): ActionCallbackRequested | ReviewEnqueueRequested {
  const { evaluation } = command;
  const key = publicationKey(command, action.id);
  if (action.kind === 'CUSTOMER_DEFINED_ACTION') {
    return {
      type: 'ActionCallbackRequested',
      data: {
        deliveryId: deterministicId('content-delivery', ...key),
        item: evaluation.item,
        action: { id: action.id },
        policies: action.policies,
        rules: action.rules,
        custom: { ...(command.actions.get(action.id)?.body ?? {}) },
        creator: command.creator,
        environment: evaluation.environment,
        content: command.content,
      },
    };
  }
  return {
    type: 'ReviewEnqueueRequested',
    data: {
      jobId: deterministicId('content-review-job', ...key),
      item: evaluation.item,
      version: evaluation.version,
      queueId: action.kind === 'ENQUEUE_TO_CHILD_SAFETY' ? 'child-safety' : 'default',
      source: 'RULE_EXECUTION',
      actionId: action.id,
      policies: action.policies,
      rules: action.rules,
      environment: evaluation.environment,
    },
  };
}
