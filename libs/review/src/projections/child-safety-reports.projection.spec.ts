import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner } from '#warden/eventstore';
import { type JsonObject, SUBJECT_ERASED_EVENT, SUBJECT_ERASURE_REQUESTED_EVENT } from '#warden/kernel';
import { reviewJobStream } from '../domain/review.streams.js';
import {
  CHILD_SAFETY_REPORTS,
  CHILD_SAFETY_REPORTS_BY_MODERATOR,
  type ChildSafetyReportDoc,
  childSafetyReportDocId,
  childSafetyReportsProjection,
  REPORT_IDS_PER_PAGE,
} from './child-safety-reports.projection.js';

const recorded = (reportId: string, subject: string | null, mediaUrls = [`https://cdn.example/${reportId}.jpg`]) =>
  anEvent('ChildSafetyReportRecorded', {
    reportId,
    jobId: `job-${reportId}`,
    item: { id: `item-${reportId}`, typeId: 'post', typeName: 'Post', version: 1 },
    creator: subject ? { id: subject.split(':')[1]!, typeId: 'user' } : null,
    reporters: [],
    incident: {
      reports: [
        { reporter: { kind: 'user', id: `rep-${reportId}`, typeId: 'user' }, reason: `reason of ${reportId}` },
        { reporter: { kind: 'user', id: 'rep-all', typeId: 'user' }, reason: `another reason of ${reportId}` },
      ],
      moderatorReason: 'csam',
      note: null,
    },
    mediaUrls,
    reportedBy: { userId: 'mod-1', email: 'mod@example.com' },
    recordedAt: '2026-03-01T10:00:00.000Z',
    subject,
  } as unknown as JsonObject);

describe('child-safety reports projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  const doc = (reportId: string) => stores.readStore.get<ChildSafetyReportDoc>(CHILD_SAFETY_REPORTS, childSafetyReportDocId('acme', reportId));

  it("blanks the sealed fields of an erased subject's reports, and only theirs, once the erasure is recorded", async () => {
    stores = sqliteStores();
    const runner = new ProjectionRunner(childSafetyReportsProjection, stores.events, stores.readStore);
    await stores.events.append(reviewJobStream('acme', 'job-r1'), [recorded('r1', 'user:gone')], 'no_stream');
    await stores.events.append(reviewJobStream('acme', 'job-r2'), [recorded('r2', 'user:stay')], 'no_stream');
    await runner.catchUp();
    expect(await doc('r1')).toMatchObject({ incident: { moderatorReason: 'csam' }, mediaUrls: ['https://cdn.example/r1.jpg'] });

    const erased = anEvent(SUBJECT_ERASED_EVENT, { requestId: 'q1', subject: 'user:gone' } as JsonObject);
    await stores.events.append('gdpr_deletion-acme:q1', [erased], 'any');
    await runner.catchUp();

    expect(await doc('r1')).toMatchObject({ reportId: 'r1', jobId: 'job-r1', incident: null, reportedBy: null, mediaUrls: null });
    expect(await doc('r2')).toMatchObject({
      incident: { reports: [{ reason: 'reason of r2' }, { reason: 'another reason of r2' }] },
      reportedBy: { email: 'mod@example.com' },
    });
    // Recorded again (another erasure of the same subject): nothing changes.
    await stores.events.append('gdpr_deletion-acme:q1', [anEvent(SUBJECT_ERASED_EVENT, { requestId: 'q1', subject: 'user:gone' } as JsonObject)], 'any');
    await runner.catchUp();
    expect(await doc('r1')).toMatchObject({ incident: null, mediaUrls: null });
  });

  it("blanks an erased reporter's reasons, and only theirs, in every report that holds one", async () => {
    stores = sqliteStores();
    const runner = new ProjectionRunner(childSafetyReportsProjection, stores.events, stores.readStore);
    await stores.events.append(reviewJobStream('acme', 'job-r1'), [recorded('r1', 'user:creator-1')], 'no_stream');
    await stores.events.append(reviewJobStream('acme', 'job-r2'), [recorded('r2', 'user:creator-2')], 'no_stream');
    await stores.events.append(
      'gdpr_deletion-acme:q1',
      [anEvent(SUBJECT_ERASURE_REQUESTED_EVENT, { requestId: 'q1', subject: 'user:rep-all' } as JsonObject)],
      'any',
    );
    await runner.catchUp();
    for (const id of ['r1', 'r2']) {
      expect((await doc(id))?.incident?.reports.map((r) => r.reason)).toEqual([`reason of ${id}`, null]);
      expect(await doc(id)).toMatchObject({ incident: { moderatorReason: 'csam' }, reportedBy: { email: 'mod@example.com' } });
    }
    // Applied again (the completion): the same documents.
    await stores.events.append('gdpr_deletion-acme:q1', [anEvent(SUBJECT_ERASED_EVENT, { requestId: 'q1', subject: 'user:rep-all' } as JsonObject)], 'any');
    await runner.catchUp();
    expect((await doc('r1'))?.incident?.reports.map((r) => r.reason)).toEqual(['reason of r1', null]);
  });

  it('blanks them as soon as the erasure is requested, before the key is forgotten, and leaves them blank on its completion', async () => {
    stores = sqliteStores();
    const runner = new ProjectionRunner(childSafetyReportsProjection, stores.events, stores.readStore);
    await stores.events.append(reviewJobStream('acme', 'job-r1'), [recorded('r1', 'user:gone')], 'no_stream');
    await stores.events.append(
      'gdpr_deletion-acme:q1',
      [anEvent(SUBJECT_ERASURE_REQUESTED_EVENT, { requestId: 'q1', subject: 'user:gone' } as JsonObject)],
      'any',
    );
    await runner.catchUp();
    expect(await doc('r1')).toMatchObject({ reportId: 'r1', incident: null, reportedBy: null, mediaUrls: null });
    // A report recorded meanwhile is blanked on the completion.
    await stores.events.append(reviewJobStream('acme', 'job-r3'), [recorded('r3', 'user:gone')], 'no_stream');
    await stores.events.append('gdpr_deletion-acme:q1', [anEvent(SUBJECT_ERASED_EVENT, { requestId: 'q1', subject: 'user:gone' } as JsonObject)], 'any');
    await runner.catchUp();
    expect(await doc('r1')).toMatchObject({ incident: null, reportedBy: null, mediaUrls: null });
    expect(await doc('r3')).toMatchObject({ incident: null, reportedBy: null, mediaUrls: null });
  });

  it("blanks the moderator's email in every report they recorded when their console account is erased, their id and the rest kept", async () => {
    stores = sqliteStores();
    const runner = new ProjectionRunner(childSafetyReportsProjection, stores.events, stores.readStore);
    await stores.events.append(reviewJobStream('acme', 'job-r1'), [recorded('r1', 'user:creator-1')], 'no_stream');
    await stores.events.append(reviewJobStream('acme', 'job-r2'), [recorded('r2', 'user:creator-2')], 'no_stream');
    const erasure = (type: string) => anEvent(type, { requestId: 'q1', subject: 'user:mod-person', consoleUserId: 'mod-1' } as JsonObject);
    await stores.events.append('gdpr_deletion-acme:q1', [erasure(SUBJECT_ERASURE_REQUESTED_EVENT)], 'any');
    await runner.catchUp();
    for (const id of ['r1', 'r2']) {
      expect(await doc(id)).toMatchObject({ reportedBy: { userId: 'mod-1', email: null }, incident: { moderatorReason: 'csam' } });
      expect((await doc(id))?.incident?.reports.map((r) => r.reason)).toEqual([`reason of ${id}`, `another reason of ${id}`]);
    }
    // A report of theirs recorded meanwhile (its email already unreadable) stays so on the completion.
    await stores.events.append(reviewJobStream('acme', 'job-r3'), [recorded('r3', 'user:creator-3')], 'no_stream');
    await stores.events.append('gdpr_deletion-acme:q1', [erasure(SUBJECT_ERASED_EVENT)], 'any');
    await runner.catchUp();
    expect(await doc('r3')).toMatchObject({ reportedBy: { userId: 'mod-1', email: null } });
  });

  it("keeps media URLs without user info, query string or fragment: a pre-signed URL's signature is a credential", async () => {
    stores = sqliteStores();
    const runner = new ProjectionRunner(childSafetyReportsProjection, stores.events, stores.readStore);
    const signed = 'https://user:pa55@bucket.s3.example/u-1/cat.jpg?X-Amz-Credential=AKIA7&X-Amz-Signature=5f3c9e#frag';
    await stores.events.append(reviewJobStream('acme', 'job-r1'), [recorded('r1', 'user:u-1', [signed, 'https://cdn.example/plain.jpg'])], 'no_stream');
    await runner.catchUp();
    expect((await doc('r1'))?.mediaUrls).toEqual(['https://bucket.s3.example/u-1/cat.jpg?…', 'https://cdn.example/plain.jpg']);
    // A rebuild after the subject's key was forgotten reads the sealed fields as null.
    await stores.events.append(reviewJobStream('acme', 'job-r2'), [recorded('r2', 'user:u-2', null as unknown as string[])], 'no_stream');
    await runner.catchUp();
    expect((await doc('r2'))?.mediaUrls).toBeNull();
  });

  it("keeps a moderator's report ids in pages of bounded size, reads an earlier release's single list as the first page, and erases through every page", async () => {
    stores = sqliteStores();
    const runner = new ProjectionRunner(childSafetyReportsProjection, stores.events, stores.readStore);
    const total = REPORT_IDS_PER_PAGE * 2 + 100;
    // An earlier release's index: every id in one document (here 1,200 of them, beyond a page).
    const legacy = Array.from({ length: 1_200 }, (_, i) => `old${i}`);
    await stores.readStore.commit([
      { op: 'put', collection: CHILD_SAFETY_REPORTS_BY_MODERATOR, id: 'acme:mod-1', doc: { orgId: 'acme', subject: 'mod-1', reportIds: legacy } },
      ...legacy.slice(0, 3).map((reportId) => ({
        op: 'put' as const,
        collection: CHILD_SAFETY_REPORTS,
        id: childSafetyReportDocId('acme', reportId),
        doc: { orgId: 'acme', reportId, reportedBy: { userId: 'mod-1', email: 'mod@example.com' } },
      })),
    ]);
    for (let i = 0; i < total; i += 500) {
      const batch = Array.from({ length: Math.min(500, total - i) }, (_, k) => recorded(`n${i + k}`, null));
      await stores.events.append(`review_job-acme:bulk${i}`, batch, 'no_stream');
    }
    // Moderators whose ids look like another's pages: their lists are their own, whatever the pages are named.
    const byModerator = (reportId: string, userId: string) => {
      const event = recorded(reportId, null);
      return { ...event, data: { ...event.data, reportedBy: { userId, email: `${reportId}@example.com` } } };
    };
    await stores.events.append('review_job-acme:lookalikes', [byModerator('look1', 'mod-1#1'), byModerator('look2', 'mod-1#pages')], 'no_stream');
    await runner.catchUp();
    const pages = await stores.readStore.find<{ reportIds: string[] }>(CHILD_SAFETY_REPORTS_BY_MODERATOR, { orgId: 'acme', subject: 'mod-1' });
    const lists = pages.filter((p) => Array.isArray(p.reportIds) && p.reportIds.some((id) => !id.startsWith('look')));
    // The legacy page as it was, then the new reports in full pages and one partial page.
    expect(lists.map((p) => p.reportIds.length).sort((a, b) => a - b)).toEqual([100, REPORT_IDS_PER_PAGE, REPORT_IDS_PER_PAGE, 1_200]);
    expect(lists.flatMap((p) => p.reportIds).filter((id) => id.startsWith('n'))).toHaveLength(total);

    await stores.events.append(
      'gdpr_deletion-acme:q1',
      [anEvent(SUBJECT_ERASED_EVENT, { requestId: 'q1', subject: 'user:x', consoleUserId: 'mod-1' } as JsonObject)],
      'any',
    );
    await runner.catchUp();
    for (const id of ['old0', 'old2', 'n0', `n${REPORT_IDS_PER_PAGE}`, `n${total - 1}`])
      expect((await doc(id))?.reportedBy, id).toEqual({ userId: 'mod-1', email: null });
    expect((await doc('look1'))?.reportedBy).toEqual({ userId: 'mod-1#1', email: 'look1@example.com' });
    expect((await doc('look2'))?.reportedBy).toEqual({ userId: 'mod-1#pages', email: 'look2@example.com' });
  });
});
