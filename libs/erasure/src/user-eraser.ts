import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { SubjectKeyStore } from '#warden/eventstore';
import { DisableUserCommand } from '#warden/identity';
import { type Clock, type CommandContext, SUBJECT_ERASED_EVENT, SUBJECT_ERASURE_REQUESTED_EVENT } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { CloseErasedUserJobsCommand } from '#warden/review';
import { AggregateStore, ProjectionHost, READ_STORE, SUBJECT_KEY_STORE } from '#warden/storage';
import { gdprDeletionDecider } from './domain/gdpr-deletion.decider.js';
import type { ErasedCounts, GdprDeletionRequested } from './domain/gdpr-deletion.events.js';
import { gdprDeletionStream } from './domain/gdpr-deletion.streams.js';
import { SUBJECT_RECORDS, SUBJECT_RECORDS_PROJECTION, type SubjectRecordDoc, type SubjectRecordKind } from './projections/subject-records.projection.js';

/** Subject records read at once, and so in one turn of the event loop (subjectRecords). */
export const SUBJECT_RECORDS_PAGE = 500;

type ErasedItem = { readonly id: string; readonly typeId: string };

/**
 * The work of one GDPR deletion: close the open review jobs of the user's items, purge the read
 * models' plaintext copies (the projections that keep one purge it on the request, caught up here),
 * empty the read models' write-ahead log, forget the user's data key (crypto-shredding: every item,
 * report and appeal sealed under it becomes unreadable at once, in the log and in every rebuild),
 * then record the completion, on which those projections purge what they copied meanwhile, and
 * empty the read models' log again. Each step is idempotent, so a re-run after a crash finishes the
 * job; its counts are then those of the run that completed it.
 */
@Injectable()
export class UserEraser {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(SUBJECT_KEY_STORE) private readonly subjectKeys: SubjectKeyStore,
    private readonly commands: CommandBus,
    private readonly aggregates: AggregateStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * `requestedAt`: the request's log position. What the subject had recorded up to it is looked up
   * and closed; what arrives while the erasure runs is sealed under the key it forgets. The read
   * models are caught up through that position, not to the head: a log that grows faster than they
   * apply it would keep the erasure waiting for as long as the load lasts (docs/gdpr.md, "The request").
   */
  async erase(requested: GdprDeletionRequested['data'], context: CommandContext, requestedAt: number): Promise<ErasedCounts> {
    const { orgId } = context;
    await this.projections.catchUpTo(SUBJECT_RECORDS_PROJECTION, requestedAt);
    const { counts, items } = await this.subjectRecords(orgId, requested.subject);
    const reviewJobsClosed = await this.commands.execute(
      new CloseErasedUserJobsCommand(requested.requestId, items, context, { position: requestedAt, at: requested.requestedAt }),
    );
    const consoleAccounts = requested.consoleUserId ? await this.eraseConsoleAccount(orgId, requested.consoleUserId, context) : 0;
    // The read models that copy personal fields in plaintext (a console account's email, the
    // child-safety reports) purge them on the request: brought up to date here, before the key is
    // forgotten and the WAL emptied.
    await this.catchUpPurges(SUBJECT_ERASURE_REQUESTED_EVENT, requestedAt);
    // Last: the purges above leave no earlier page behind, in the read models' WAL nor in the log's
    // (which forgetting empties).
    await this.readStore.purgeEarlierVersions();
    const dataKeys = await this.subjectKeys.forget(orgId, requested.subject);
    // States this process folded with the subject's fields opened go with the key (other processes' within a minute: AggregateCache).
    this.aggregates.forgetCached();
    const erased: ErasedCounts = {
      dataKeys,
      items: counts.item,
      reports: counts.report,
      appeals: counts.appeal,
      reviewJobsClosed,
      consoleAccounts,
    };
    const completion = await this.aggregates.handle(
      gdprDeletionStream(orgId, requested.requestId),
      gdprDeletionDecider,
      { type: 'CompleteGdprDeletion', erased, now: this.clock.now().toISOString() },
      context,
      { retries: 10 },
    );
    // A copy made between the request's purge and the key's forgetting (a child-safety report
    // recorded meanwhile) is purged on the completion: its earlier pages go too. Nothing is left
    // to purge in the usual case, and the WAL holds only this deletion's own pages by then.
    // Through the completion as appended (a completion recorded before, on a re-run: up to the head).
    await this.catchUpPurges(SUBJECT_ERASED_EVENT, completion.result?.position ?? 0);
    await this.readStore.purgeEarlierVersions();
    return erased;
  }

  /**
   * The subject's records, counted by kind, and their items. Read SUBJECT_RECORDS_PAGE at a time,
   * yielding to the event loop between pages: in one find, the records of a user who had flooded
   * 100,000 items held the loop, and every reactor and request of the process with it, for a third
   * of a second (their items' jobs are then looked up a page at a time too: JobAutoCloser). Pages
   * over the projection's index on (orgId, subject), in the order the store keeps stable between
   * finds, `skip` past the pages read: the index is stepped over, not the documents (4 ms for a
   * page 99,500 records in, measured). Records are only ever added or rewritten in place, never
   * removed, so every record there when the look-up starts is read. One added meanwhile may be read
   * too, as the single find read one the projection had applied past the request: last in SQLite's
   * order; in MongoDB's, by id, it may push one already read into the next page, read twice then and
   * counted once (`seen`).
   */
  private async subjectRecords(orgId: string, subject: string): Promise<{ counts: Record<SubjectRecordKind, number>; items: ErasedItem[] }> {
    const counts: Record<SubjectRecordKind, number> = { item: 0, report: 0, appeal: 0 };
    const items: ErasedItem[] = [];
    const seen = new Set<string>();
    for (let skip = 0; ; skip += SUBJECT_RECORDS_PAGE) {
      if (skip > 0) await new Promise((resolve) => setImmediate(resolve));
      const page = await this.readStore.find<SubjectRecordDoc>(SUBJECT_RECORDS, { orgId, subject }, { limit: SUBJECT_RECORDS_PAGE, skip });
      for (const record of page) {
        const key = JSON.stringify([record.kind, record.ref.typeId, record.ref.id]);
        if (seen.has(key)) continue;
        seen.add(key);
        if (record.kind in counts) counts[record.kind]++;
        if (record.kind === 'item' && record.ref.typeId) items.push({ id: record.ref.id, typeId: record.ref.typeId });
      }
      if (page.length < SUBJECT_RECORDS_PAGE) return { counts, items };
    }
  }

  /** Catches up, through `position` (the event's), the read-model projections that purge a subject's copies on `eventType`. */
  private async catchUpPurges(eventType: string, position: number): Promise<void> {
    for (const projection of this.projections.projections()) {
      if (!projection.reactor && projection.eventTypes.includes(eventType)) await this.projections.catchUpTo(projection.name, position);
    }
  }

  /**
   * The same person's console account: disabled (its sessions end), unless it is the
   * organization's last active ADMIN, whom identity keeps so that someone can still manage the
   * organization (docs/gdpr.md, "What stays"); its email forgotten either way (sealed under the
   * console user's id). The users read model drops its copy of the email on the request (caught up
   * by erase).
   */
  private async eraseConsoleAccount(orgId: string, userId: string, context: CommandContext): Promise<number> {
    await this.commands.execute(new DisableUserCommand(orgId, userId, context, { keepLastAdmin: true }));
    await this.subjectKeys.forget(orgId, userId);
    return 1;
  }
}
