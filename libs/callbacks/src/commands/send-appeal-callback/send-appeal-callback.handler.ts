import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetCatalogSettingsQuery, GetEverEntitiesQuery } from '#warden/catalog';
import { conflict, invalidField } from '#warden/kernel';
import { buildAppealCallbackBody } from '../../domain/appeal-callback-body.js';
import type { JsonBody } from '../../domain/callback-body.model.js';
import { appealDeliveryId } from '../../domain/callbacks.streams.js';
import { destinationOf } from '../../delivery/action-delivery-recorder.js';
import { DeliveryRequests } from '../../delivery/delivery-requests.js';
import { type AppealCallbackRequested, SendAppealCallbackCommand } from './send-appeal-callback.command.js';

@CommandHandler(SendAppealCallbackCommand)
export class SendAppealCallbackHandler implements ICommandHandler<SendAppealCallbackCommand> {
  constructor(
    private readonly queries: QueryBus,
    private readonly requests: DeliveryRequests,
  ) {}

  async execute(command: SendAppealCallbackCommand): Promise<AppealCallbackRequested> {
    const { decision, context } = command;
    const orgId = context.orgId;
    const [itemTypes, appeals] = await Promise.all([
      // An item type archived since the appeal still names the item as it was.
      this.queries.execute(new GetEverEntitiesQuery(orgId, 'itemType')),
      this.queries.execute(new GetCatalogSettingsQuery(orgId, 'appeals')),
    ]);
    const itemType = itemTypes.find((t) => t.id === decision.item.typeId);
    if (!itemType) throw invalidField('/item/typeId', `Organization ${orgId} has no item type ${decision.item.typeId}`);
    const destination = destinationOf(appeals?.callback);
    if (!destination) throw conflict(`Organization ${orgId} has no appeal callback URL configured (appeals.callback)`);
    const deliveryId = appealDeliveryId(orgId, decision.appealId);
    const created = await this.requests.request(
      {
        deliveryId,
        kind: 'appeal',
        trigger: 'appeal-decision',
        actionId: null,
        appealId: decision.appealId,
        item: { id: decision.item.id, typeId: decision.item.typeId },
        destination,
        body: buildAppealCallbackBody({
          appealId: decision.appealId,
          item: { id: decision.item.id, typeId: itemType.id, typeName: itemType.name },
          appealedBy: decision.appealedBy,
          decision: decision.decision,
          appealBody: (appeals?.body ?? {}) as JsonBody,
        }) as unknown as JsonBody,
        subject: null,
      },
      context,
    );
    return { deliveryId, created };
  }
}
