import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CatalogReader } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { invalidInput, notFound, streamName } from '#warden/kernel';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import { parseHashLines } from './hash-lines.js';
import { ImportBankHashesCommand, type ImportReport } from './import-bank-hashes.command.js';

/** At most 10,000 hashes an event, 10 events an append: far below KurrentDB's and MongoDB's limits. */
const HASH_CHUNK = 10_000;
const EVENTS_PER_APPEND = 10;

@CommandHandler(ImportBankHashesCommand)
export class ImportBankHashesHandler implements ICommandHandler<ImportBankHashesCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly aggregates: AggregateStore,
    private readonly catalog: CatalogReader,
  ) {}

  async execute(command: ImportBankHashesCommand): Promise<ImportReport> {
    const { orgId } = command.context;
    const bank = (await this.catalog.liveEntities(orgId, 'hashBank')).find((b) => b.id === command.bankId);
    if (!bank) throw notFound(`No hash bank ${command.bankId} in organization ${orgId} (configure it with apply first)`);
    const { hashes, problems } = parseHashLines(command.text, bank.hashType);
    if (problems.length > 0) {
      throw invalidInput(
        ...problems.slice(0, 20).map((detail) => ({ title: 'Malformed hash', detail })),
        ...(problems.length > 20 ? [{ title: 'Malformed hash', detail: `… and ${problems.length - 20} more` }] : []),
      );
    }
    // Same stream as the configuration's hashes (streamName('hash_bank', org, bank)); the source
    // tells them apart, so apply never removes what was imported.
    const stream = streamName('hash_bank', orgId, bank.id);
    const recorded = await this.events.readStream(stream);
    const present = new Set<string>();
    for (const e of recorded) {
      const data = e.data as { hashes: string[] };
      if (e.type === 'HashBankHashesAdded') for (const h of data.hashes) present.add(h);
      else if (e.type === 'HashBankHashesRemoved') for (const h of data.hashes) present.delete(h);
    }
    const fresh = hashes.filter((h) => !present.has(h));
    const chunks: string[][] = [];
    for (let i = 0; i < fresh.length; i += HASH_CHUNK) chunks.push(fresh.slice(i, i + HASH_CHUNK));
    let expected: number | 'no_stream' = recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision;
    for (let i = 0; i < chunks.length; i += EVENTS_PER_APPEND) {
      const batch = chunks.slice(i, i + EVENTS_PER_APPEND).map((c) => ({
        type: 'HashBankHashesAdded',
        data: { bankId: bank.id, source: 'import', hashes: c },
      }));
      const result = await this.aggregates.record(stream, batch, command.context, expected);
      expected = result.nextRevision;
    }
    return { bankId: bank.id, added: fresh.length, alreadyPresent: hashes.length - fresh.length, events: chunks.length };
  }
}
