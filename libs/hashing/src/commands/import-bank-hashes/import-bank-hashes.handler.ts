import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { bankHashesOf, decideOnBank } from '../bank-hashes.js';
import { ImportBankHashesCommand, type ImportReport } from './import-bank-hashes.command.js';

@CommandHandler(ImportBankHashesCommand)
export class ImportBankHashesHandler implements ICommandHandler<ImportBankHashesCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
  ) {}

  async execute(command: ImportBankHashesCommand): Promise<ImportReport> {
    const { orgId } = command.context;
    const { bank, hashes } = await bankHashesOf(this.queries, orgId, command.bankId, command.text);
    const decided = await decideOnBank(this.aggregates, orgId, { type: 'ImportHashes', bankId: bank.id, hashes }, command.context, 'import again');
    return { bankId: bank.id, added: decided.hashes, alreadyPresent: hashes.length - decided.hashes, events: decided.events.length };
  }
}
