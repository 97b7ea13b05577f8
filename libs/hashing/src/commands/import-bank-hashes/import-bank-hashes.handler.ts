import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, type HashBankEntity, hashBankDecider, hashBankStream, parseHashLines } from '#warden/catalog';
import { concurrentUpdateConflict, invalidInput, isConcurrentUpdateConflict, notFound } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { ImportBankHashesCommand, type ImportReport } from './import-bank-hashes.command.js';

/** At most 10 events (of at most 10,000 hashes) an append: far below KurrentDB's and MongoDB's limits. */
export const EVENTS_PER_APPEND = 10;

/**
 * The organization's live bank and the file's hashes in its type, or the 404 / the 400 naming the
 * first 20 malformed lines (never quoting them: the file may be any file). Shared by `bank import`
 * and `bank remove`.
 */
export async function bankHashesOf(queries: QueryBus, orgId: string, bankId: string, text: string): Promise<{ bank: HashBankEntity; hashes: string[] }> {
  const bank = (await queries.execute(new GetLiveEntitiesQuery(orgId, 'hashBank'))).find((b) => b.id === bankId);
  if (!bank) throw notFound(`No hash bank ${bankId} in organization ${orgId} (configure it with apply first)`);
  const { hashes, problems } = parseHashLines(text, bank.hashType);
  if (problems.length > 0) {
    throw invalidInput(
      ...problems.slice(0, 20).map((detail) => ({ title: 'Malformed hash', detail })),
      ...(problems.length > 20 ? [{ title: 'Malformed hash', detail: `… and ${problems.length - 20} more malformed lines` }] : []),
    );
  }
  return { bank, hashes };
}

@CommandHandler(ImportBankHashesCommand)
export class ImportBankHashesHandler implements ICommandHandler<ImportBankHashesCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
  ) {}

  async execute(command: ImportBankHashesCommand): Promise<ImportReport> {
    const { orgId } = command.context;
    const { bank, hashes } = await bankHashesOf(this.queries, orgId, command.bankId, command.text);
    // Same stream as the configuration's hashes; the source tells them apart, so apply never
    // removes what was imported (the catalog's hash-bank decider).
    // A few events an append (event size limits), each after the last. No retry: a concurrent
    // apply or import is reported, and the import run again adds only what is still missing.
    const { events } = await this.aggregates
      .handle(hashBankStream(orgId, bank.id), hashBankDecider, { type: 'ImportHashes', bankId: bank.id, hashes }, command.context, {
        eventsPerAppend: EVENTS_PER_APPEND,
        retries: 0,
      })
      .catch((error: unknown) => {
        if (isConcurrentUpdateConflict(error)) {
          throw concurrentUpdateConflict(`Hash bank ${bank.id} was changed concurrently (an apply or another import); import again`);
        }
        throw error;
      });
    const added = events.reduce((n, e) => n + e.data.hashes.length, 0);
    return { bankId: bank.id, added, alreadyPresent: hashes.length - added, events: events.length };
  }
}
