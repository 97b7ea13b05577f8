import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, hashBankDecider, hashBankStream } from '#warden/catalog';
import { type EventStore, WrongExpectedRevisionError } from '#warden/eventstore';
import { concurrentUpdateConflict, foldStream, invalidInput, notFound } from '#warden/kernel';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import { parseHashLines } from './hash-lines.js';
import { ImportBankHashesCommand, type ImportReport } from './import-bank-hashes.command.js';

/** At most 10 events (of at most 10,000 hashes) an append: far below KurrentDB's and MongoDB's limits. */
const EVENTS_PER_APPEND = 10;

@CommandHandler(ImportBankHashesCommand)
export class ImportBankHashesHandler implements ICommandHandler<ImportBankHashesCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
  ) {}

  async execute(command: ImportBankHashesCommand): Promise<ImportReport> {
    const { orgId } = command.context;
    const bank = (await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'hashBank'))).find((b) => b.id === command.bankId);
    if (!bank) throw notFound(`No hash bank ${command.bankId} in organization ${orgId} (configure it with apply first)`);
    const { hashes, problems } = parseHashLines(command.text, bank.hashType);
    if (problems.length > 0) {
      throw invalidInput(
        ...problems.slice(0, 20).map((detail) => ({ title: 'Malformed hash', detail })),
        ...(problems.length > 20 ? [{ title: 'Malformed hash', detail: `… and ${problems.length - 20} more` }] : []),
      );
    }
    // Same stream as the configuration's hashes; the source tells them apart, so apply never
    // removes what was imported (the catalog's hash-bank decider).
    const stream = hashBankStream(orgId, bank.id);
    const recorded = await this.events.readStream(stream);
    const state = foldStream(hashBankDecider, stream, recorded);
    const events = hashBankDecider.decide({ type: 'ImportHashes', bankId: bank.id, hashes }, state);
    const added = events.reduce((n, e) => n + e.data.hashes.length, 0);
    let expected: number | 'no_stream' = recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision;
    try {
      // A few events an append (event size limits), each after the last.
      for (let i = 0; i < events.length; i += EVENTS_PER_APPEND) {
        const result = await this.aggregates.record(stream, events.slice(i, i + EVENTS_PER_APPEND), command.context, expected);
        expected = result.nextRevision;
      }
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        throw concurrentUpdateConflict(`Hash bank ${bank.id} was changed concurrently (an apply or another import); import again`);
      }
      throw error;
    }
    return { bankId: bank.id, added, alreadyPresent: hashes.length - added, events: events.length };
  }
}
