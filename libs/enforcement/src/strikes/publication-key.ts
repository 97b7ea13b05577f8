import { deterministicId, parseStreamName, type RecordedOf } from '#warden/kernel';
import type { ActionCallbackRequested } from '#warden/callbacks/contracts';

/**
 * What makes two published actions (ActionCallbackRequested) one application, for strikes and for
 * the score alike: a rule's action on one content of an item counts once however many rules and
 * runs (and environments) published it and however often the content is re-sent; a decision's or
 * an executed action's once per delivery (its id derives from the decision or the execution).
 */
export function publicationKey(event: RecordedOf<ActionCallbackRequested>): string {
  const { data } = event;
  const orgId = event.metadata.orgId;
  const { category, idParts } = parseStreamName(event.streamName);
  const fromRule = data.trigger !== 'decision' && category === 'item_evaluation' && idParts.length >= 4;
  if (!fromRule) return deterministicId('delivery-strikes', orgId, data.deliveryId);
  // Published before the content was recorded with the action: by version, as then.
  return typeof data.content === 'string'
    ? deterministicId('content-strikes', orgId, data.item.typeId, data.item.id, data.content, data.action.id)
    : deterministicId('rule-strikes', orgId, data.item.typeId, data.item.id, idParts[3]!, data.action.id);
}
