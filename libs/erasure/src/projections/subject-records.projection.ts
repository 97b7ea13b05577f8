import type { Projection } from '#warden/eventstore';
import type { ItemSubmitted } from '#warden/ingestion';
import { type RecordedEvent, recordedAs } from '#warden/kernel';

// Named when erasure was part of the audit module: the names stay, so that a data directory's
// checkpoint and collection carry on (renaming them would rebuild the index from the log).
export const SUBJECT_RECORDS_PROJECTION = 'audit-subject-records';
export const SUBJECT_RECORDS = 'audit_subject_records';

export type SubjectRecordKind = 'item' | 'report' | 'appeal';

/** One thing sealed under a subject's key, by opaque ids only: what a deletion of the subject reaches. */
export interface SubjectRecordDoc {
  orgId: string;
  subject: string;
  kind: SubjectRecordKind;
  /** The item (its type and id), the report or the appeal (its id). */
  ref: { id: string; typeId: string | null };
}

const kindOf: Record<string, SubjectRecordKind> = { ItemSubmitted: 'item', ReportSubmitted: 'report', AppealSubmitted: 'appeal' };

function refOf(kind: SubjectRecordKind, event: RecordedEvent): SubjectRecordDoc['ref'] {
  const item = recordedAs<ItemSubmitted>(event, 'ItemSubmitted')?.data;
  if (item) return { id: item.itemId, typeId: item.typeId };
  return { id: String(kind === 'report' ? event.data['reportId'] : event.data['appealId']), typeId: null };
}

/**
 * Whose items, reports and appeals are where: the subject each is sealed under (a plain field of
 * the event, outside the sealed ones) and its ids. One document per item, report or appeal
 * stream, so a new version of an item, or a redelivery, rewrites the same document.
 */
export const subjectRecordsProjection: Projection = {
  name: SUBJECT_RECORDS_PROJECTION,
  collections: [SUBJECT_RECORDS],
  eventTypes: Object.keys(kindOf),
  needsPersonalData: false,
  // The audit trail may fall behind during a burst: queues, actions and callbacks go first.
  background: true,
  // Read by an erasure alone, which catches it up first (a round trip to the thread, once per
  // erasure): its write per item leaves the event loop that serves requests and runs the reactors.
  ownThread: true,
  indexes: [{ collection: SUBJECT_RECORDS, fields: ['orgId', 'subject'] }],
  apply(event, ctx) {
    const subject = event.data['subject'];
    const kind = kindOf[event.type];
    if (typeof subject !== 'string' || !kind) return;
    const doc: SubjectRecordDoc = { orgId: event.metadata.orgId, subject, kind, ref: refOf(kind, event) };
    ctx.put(SUBJECT_RECORDS, event.streamName, doc as never);
  },
};
