import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { bankHashesOf, decideOnBank } from '../bank-hashes.js';
import { RemoveBankHashesCommand, type RemoveReport } from './remove-bank-hashes.command.js';

/**
 * `bank remove`: the listed hashes an import put in the bank go (HashBankHashesRemoved, source
 * `import`); the worker's index drops them as it drops the configuration's (docs/hashing.md).
 */
@CommandHandler(RemoveBankHashesCommand)
export class RemoveBankHashesHandler implements ICommandHandler<RemoveBankHashesCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
  ) {}

  async execute(command: RemoveBankHashesCommand): Promise<RemoveReport> {
    const { orgId } = command.context;
    // Any type: an import may have put hashes of the bank's earlier type in (docs/hashing.md).
    const { bank, hashes } = await bankHashesOf(this.queries, orgId, command.bankId, command.text, true);
    const decided = await decideOnBank(this.aggregates, orgId, { type: 'RemoveImportedHashes', bankId: bank.id, hashes }, command.context, 'remove again');
    return { bankId: bank.id, removed: decided.hashes, notImported: new Set(hashes).size - decided.hashes, events: decided.events.length };
  }
}
