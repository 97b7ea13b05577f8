import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { hashBankDecider, hashBankStream } from '#warden/catalog';
import { concurrentUpdateConflict, isConcurrentUpdateConflict } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { bankHashesOf, EVENTS_PER_APPEND } from '../import-bank-hashes/import-bank-hashes.handler.js';
import { RemoveBankHashesCommand, type RemoveReport } from './remove-bank-hashes.command.js';

/**
 * `bank remove`: the listed hashes an import put in the bank go (HashBankHashesRemoved, source
 * `import`), on the stream imports and apply share; the worker's index drops them as it drops the
 * configuration's (docs/hashing.md).
 */
@CommandHandler(RemoveBankHashesCommand)
export class RemoveBankHashesHandler implements ICommandHandler<RemoveBankHashesCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
  ) {}

  async execute(command: RemoveBankHashesCommand): Promise<RemoveReport> {
    const { orgId } = command.context;
    const { bank, hashes } = await bankHashesOf(this.queries, orgId, command.bankId, command.text);
    const { events } = await this.aggregates
      .handle(hashBankStream(orgId, bank.id), hashBankDecider, { type: 'RemoveImportedHashes', bankId: bank.id, hashes }, command.context, {
        eventsPerAppend: EVENTS_PER_APPEND,
        retries: 0,
      })
      .catch((error: unknown) => {
        if (isConcurrentUpdateConflict(error)) {
          throw concurrentUpdateConflict(`Hash bank ${bank.id} was changed concurrently (an apply or an import); remove again`);
        }
        throw error;
      });
    const removed = events.reduce((n, e) => n + e.data.hashes.length, 0);
    return { bankId: bank.id, removed, notImported: new Set(hashes).size - removed, events: events.length };
  }
}
