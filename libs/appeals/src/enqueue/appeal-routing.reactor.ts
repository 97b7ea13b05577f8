import type { CommandBus } from '@nestjs/cqrs';
import { eventProjection, orderingKey, type Projection } from '#warden/eventstore';
import type { RecordedOf } from '#warden/kernel';
import { OpenAppealJobCommand } from '#warden/review';
import type { AppealSubmitted } from '../domain/appeal.events.js';

export const APPEAL_ROUTING_REACTOR = 'appeal-routing';

/**
 * An appeal becomes a review job (review's OpenAppealJobCommand routes it and opens it once per
 * appeal id, so a re-run after a crash opens nothing more). An appeal whose personal data was
 * erased before it was routed is dropped: its item's data and its appellant are gone.
 */
async function routeAppeal(commands: CommandBus, event: RecordedOf<AppealSubmitted>): Promise<void> {
  if (event.metadata.personalDataRedacted) return;
  const { data } = event;
  await commands.execute(
    new OpenAppealJobCommand(
      {
        appealId: data.appealId,
        appealedAt: data.appealedAt,
        item: { ...data.actionedItem, data: data.actionedItemData },
        actionsTaken: data.actionsTaken,
        violatingPolicyIds: data.violatingPolicyIds,
      },
      { orgId: event.metadata.orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'appeals' },
    ),
  );
}

export function appealRoutingReactor(deps: { readonly commands: CommandBus }): Projection {
  return eventProjection<AppealSubmitted>({
    name: APPEAL_ROUTING_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['AppealSubmitted'],
    // Appeal routing rules see the actioned item's data, which is sealed with the appeal.
    needsPersonalData: true,
    // Each appeal on its own stream: appeals at once.
    keyOf: (event) => orderingKey(event, event.streamName),
    apply: (event) => routeAppeal(deps.commands, event),
  });
}
