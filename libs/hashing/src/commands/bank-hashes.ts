import type { QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, type HashBankCommand, type HashBankEntity, hashBankDecider, hashBankStream, parseHashLines } from '#warden/catalog';
import { type CommandContext, concurrentUpdateConflict, invalidInput, isConcurrentUpdateConflict, notFound } from '#warden/kernel';
import type { AggregateStore } from '#warden/storage';

/** At most 10 events (of at most 10,000 hashes) an append: far below KurrentDB's and MongoDB's limits. */
const EVENTS_PER_APPEND = 10;

/**
 * The organization's live bank and the file's hashes in its type, or the 404 / the 400 naming the
 * first 20 malformed lines (never quoting them: the file may be any file). Shared by `bank import`
 * and `bank remove`.
 */
export async function bankHashesOf(
  queries: QueryBus,
  orgId: string,
  bankId: string,
  text: string,
  anyType = false,
): Promise<{ bank: HashBankEntity; hashes: string[] }> {
  const bank = (await queries.execute(new GetLiveEntitiesQuery(orgId, 'hashBank'))).find((b) => b.id === bankId);
  if (!bank) throw notFound(`No hash bank ${bankId} in organization ${orgId} (configure it with apply first)`);
  const { hashes, problems } = parseHashLines(text, anyType ? 'ANY' : bank.hashType);
  if (problems.length > 0) {
    throw invalidInput(
      ...problems.slice(0, 20).map((detail) => ({ title: 'Malformed hash', detail })),
      ...(problems.length > 20 ? [{ title: 'Malformed hash', detail: `… and ${problems.length - 20} more malformed lines` }] : []),
    );
  }
  return { bank, hashes };
}

/**
 * The bank's decision appended on the stream the configuration's hashes share (the source tells
 * them apart, so apply never removes what was imported: the catalog's hash-bank decider), a few
 * events an append (event size limits), each after the last. No retry: a concurrent apply or
 * import is reported, and the command run again does only what is still to do.
 */
export async function decideOnBank(aggregates: AggregateStore, orgId: string, command: HashBankCommand, context: CommandContext, runAgain: string) {
  const { events } = await aggregates
    .handle(hashBankStream(orgId, command.bankId), hashBankDecider, command, context, { eventsPerAppend: EVENTS_PER_APPEND, retries: 0 })
    .catch((error: unknown) => {
      if (isConcurrentUpdateConflict(error)) {
        throw concurrentUpdateConflict(`Hash bank ${command.bankId} was changed concurrently (an apply or an import); ${runAgain}`);
      }
      throw error;
    });
  return { events, hashes: events.reduce((n, e) => n + e.data.hashes.length, 0) };
}
