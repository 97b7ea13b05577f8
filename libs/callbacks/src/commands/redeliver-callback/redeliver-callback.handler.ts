import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { CATALOG_PROJECTION, GetCatalogSettingsQuery, GetLiveEntitiesQuery } from '#warden/catalog';
import { type Clock, DomainError, notFound } from '#warden/kernel';
import type { Filter, ReadStore } from '#warden/readstore';
import { CLOCK } from '#warden/platform';
import { AggregateStore, ProjectionHost, READ_STORE } from '#warden/storage';
import { callbackDeliveryDecider } from '../../domain/callback-delivery.decider.js';
import type { CallbackDestination } from '../../domain/callback-delivery.events.js';
import { deliveryStream } from '../../domain/callbacks.streams.js';
import { destinationOf } from '../../delivery/action-delivery-recorder.js';
import { CALLBACK_DELIVERIES_PROJECTION } from '../../projections/callback-deliveries.projection.js';
import { CALLBACK_DELIVERIES, type CallbackDeliveryDoc, deliveryDocId } from '../../projections/callback-deliveries.read-model.js';
import { RedeliverCallbackCommand, type RedeliveryReport } from './redeliver-callback.command.js';

const CONCURRENCY = 32;

@CommandHandler(RedeliverCallbackCommand)
export class RedeliverCallbackHandler implements ICommandHandler<RedeliverCallbackCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RedeliverCallbackCommand): Promise<RedeliveryReport> {
    const { selection } = command;
    // The delivery as recorded, and the callback URL and headers as configured a moment ago
    // (`warden apply` then redeliver: the new URL is the one used), whichever process asks.
    await Promise.all([this.projections.catchUp(CALLBACK_DELIVERIES_PROJECTION), this.projections.catchUp(CATALOG_PROJECTION)]);
    const org: Filter = selection.orgId ? { orgId: selection.orgId } : {};
    const targets =
      'deliveryId' in selection
        ? await this.deliveriesWithId(selection.deliveryId, selection.orgId)
        : await this.readStore.find<CallbackDeliveryDoc>(
            CALLBACK_DELIVERIES,
            { ...org, status: 'dead' },
            { sort: [{ field: 'requestedAt', direction: 'asc' }] },
          );
    if ('deliveryId' in selection && targets.length === 0) throw notFound(`No callback delivery ${selection.deliveryId}`);

    const destinations = new Map<string, Promise<CallbackDestination | null>>();
    const destination = (doc: CallbackDeliveryDoc) => {
      const key = `${doc.orgId}\u0000${doc.kind}\u0000${doc.actionId ?? ''}`;
      let found = destinations.get(key);
      if (!found) {
        found = this.configuredDestination(doc);
        destinations.set(key, found);
      }
      return found;
    };
    const redelivered: Array<RedeliveryReport['redelivered'][number]> = [];
    const refused: Array<RedeliveryReport['refused'][number]> = [];
    let next = 0;
    const worker = async () => {
      while (next < targets.length) {
        const doc = targets[next++]!;
        try {
          const { events } = await this.aggregates.handle(
            deliveryStream(doc.orgId, doc.deliveryId),
            callbackDeliveryDecider,
            { type: 'Redeliver', at: this.clock.now().toISOString(), destination: await destination(doc), requestedBy: command.actor },
            { orgId: doc.orgId, correlationId: randomUUID(), actor: command.actor },
          );
          const started = events.find((e) => e.type === 'CallbackRedeliveryRequested');
          if (started) redelivered.push({ orgId: doc.orgId, deliveryId: doc.deliveryId, cycle: started.data.cycle });
        } catch (error) {
          if (!(error instanceof DomainError) || 'deliveryId' in selection) throw error;
          refused.push({ orgId: doc.orgId, deliveryId: doc.deliveryId, reason: error.message });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, targets.length) }, worker));
    return { redelivered, refused };
  }

  /** The destination configured now: a redelivery goes where the organization wants callbacks today. */
  /**
   * The delivery of that id: one read by key within an organization (the console's, the CLI's
   * `--org`); across organizations (the CLI without `--org`) an indexed find.
   */
  private async deliveriesWithId(deliveryId: string, orgId: string | undefined): Promise<CallbackDeliveryDoc[]> {
    if (orgId === undefined) return this.readStore.find<CallbackDeliveryDoc>(CALLBACK_DELIVERIES, { deliveryId });
    const doc = await this.readStore.get<CallbackDeliveryDoc>(CALLBACK_DELIVERIES, deliveryDocId(orgId, deliveryId));
    return doc ? [doc] : [];
  }

  private async configuredDestination(doc: CallbackDeliveryDoc): Promise<CallbackDestination | null> {
    if (doc.kind === 'appeal') {
      return destinationOf((await this.queries.execute(new GetCatalogSettingsQuery(doc.orgId, 'appeals')))?.callback);
    }
    const actions = await this.queries.execute(new GetLiveEntitiesQuery(doc.orgId, 'action'));
    return destinationOf(actions.find((a) => a.id === doc.actionId)?.callback);
  }
}
