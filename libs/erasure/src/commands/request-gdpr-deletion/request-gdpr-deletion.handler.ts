import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import { FindUserByEmailQuery } from '#warden/identity';
import { type Clock, invalidField, userSubject } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { gdprDeletionDecider } from '../../domain/gdpr-deletion.decider.js';
import { gdprDeletionStream, gdprRequestId } from '../../domain/gdpr-deletion.streams.js';
import { RequestGdprDeletionCommand } from './request-gdpr-deletion.command.js';

/**
 * Checks that `typeId` is a USER item type of the organization, then decides the request on the
 * user's deletion stream: recorded the first time; the same user again (pending or completed)
 * records nothing and gets the same request id. A user Warden never saw is accepted like any other.
 */
@CommandHandler(RequestGdprDeletionCommand)
export class RequestGdprDeletionHandler implements ICommandHandler<RequestGdprDeletionCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ user, context, consoleEmail }: RequestGdprDeletionCommand): Promise<{ requestId: string }> {
    await this.checkUserType(context.orgId, user.typeId);
    const consoleUserId = consoleEmail === undefined ? null : await this.consoleUserOf(context.orgId, consoleEmail);
    const requestId = gdprRequestId(context.orgId, user);
    await this.aggregates.handle(
      gdprDeletionStream(context.orgId, requestId),
      gdprDeletionDecider,
      {
        type: 'RequestGdprDeletion',
        requestId,
        user: { id: user.id, typeId: user.typeId },
        subject: userSubject(user),
        consoleUserId,
        now: this.clock.now().toISOString(),
      },
      context,
      { retries: 10 },
    );
    return { requestId };
  }

  /** Only an account of the requesting organization: another organization's address is as unknown as none. */
  private async consoleUserOf(orgId: string, email: string): Promise<string> {
    const found = await this.queries.execute(new FindUserByEmailQuery(email, orgId));
    if (!found) throw invalidField('/consoleEmail', 'no console user of this organization has this email');
    return found.id;
  }

  private async checkUserType(orgId: string, typeId: string): Promise<void> {
    // An item type applied moments ago is waited for.
    const type = (await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType', [typeId]))).find((t) => t.id === typeId);
    if (!type) throw invalidField('/typeId', `no item type ${typeId}`);
    if (type.kind !== 'USER') throw invalidField('/typeId', `item type ${typeId} is of kind ${type.kind}, not USER`);
  }
}
