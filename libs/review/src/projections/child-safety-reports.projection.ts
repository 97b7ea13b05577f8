import type { Projection, ProjectionContext } from '#warden/eventstore';
import { recordedAs, redactUrl, SUBJECT_ERASED_EVENT, SUBJECT_ERASURE_REQUESTED_EVENT, subjectErasureOf, userSubject } from '#warden/kernel';
import type { ReadDocument } from '#warden/readstore';
import type { ChildSafetyReportRecorded, IncidentReport } from '../domain/review-job.events.js';

export const CHILD_SAFETY_REPORTS_PROJECTION = 'review-child-safety-reports';
export const CHILD_SAFETY_REPORTS = 'child_safety_reports';
/** A subject's report ids (opaque ids only): what an erasure of the subject's data must reach. */
export const CHILD_SAFETY_REPORTS_BY_SUBJECT = 'child_safety_reports_by_subject';
/** A reporter's report ids (opaque ids only): the reports whose incident holds their reason. */
export const CHILD_SAFETY_REPORTS_BY_REPORTER = 'child_safety_reports_by_reporter';
/** A moderator's report ids (a console user's id: opaque): the reports whose `reportedBy` holds their email. */
export const CHILD_SAFETY_REPORTS_BY_MODERATOR = 'child_safety_reports_by_moderator';

/** The fields ChildSafetyReportRecorded seals (REVIEW_PERSONAL_DATA in contracts.ts): what an erasure blanks here. */
const SEALED = ['incident', 'reportedBy', 'mediaUrls'] as const;
type Recorded = ChildSafetyReportRecorded['data'];

/**
 * One recorded child-safety report, for the export (what the event records, media URLs without
 * their query string, and the organization). Its sealed fields are null once the subject's data
 * was erased.
 */
export type ChildSafetyReportDoc = Omit<Recorded, 'subject' | (typeof SEALED)[number]> & {
  [Field in (typeof SEALED)[number]]: Recorded[Field] | null;
} & { orgId: string };
type SubjectReportsDoc = { orgId: string; subject: string; reportIds: string[] };

export const childSafetyReportDocId = (orgId: string, reportId: string) => `${orgId}:${reportId}`;
const subjectDocId = (orgId: string, subject: string) => `${orgId}:${subject}`;

/**
 * The child-safety reports moderators recorded, for the export. It reads the reports' reasons
 * (personal data), so it holds a plaintext copy: when a GDPR deletion of the subject is requested
 * (SUBJECT_ERASURE_REQUESTED_EVENT: the eraser catches this projection up, then empties the read
 * models' write-ahead log, before it forgets the key) the sealed fields of their reports become
 * null, and again once the erasure is recorded (SUBJECT_ERASED_EVENT: reports recorded meanwhile),
 * as a rebuild after the erasure shows them. Each report's reason is also its reporter's: their
 * erasure blanks their reasons in every report that names one (CHILD_SAFETY_REPORTS_BY_REPORTER),
 * as the reasons, sealed under their key too, read back after it. The moderator's email is theirs
 * too: the erasure of their console account (the request's `consoleUserId`) blanks it in every
 * report they recorded (CHILD_SAFETY_REPORTS_BY_MODERATOR), as it reads back after it. Media
 * URLs are kept without user info, query string or fragment (a pre-signed URL's signature is a
 * credential: the whole URL stays sealed in the event).
 * A report is written once, so a redelivery rewrites the same document; an erasure applied again
 * writes the same nulls.
 */
export const childSafetyReportsProjection: Projection = {
  name: CHILD_SAFETY_REPORTS_PROJECTION,
  collections: [CHILD_SAFETY_REPORTS, CHILD_SAFETY_REPORTS_BY_SUBJECT, CHILD_SAFETY_REPORTS_BY_REPORTER, CHILD_SAFETY_REPORTS_BY_MODERATOR],
  eventTypes: ['ChildSafetyReportRecorded', SUBJECT_ERASURE_REQUESTED_EVENT, SUBJECT_ERASED_EVENT],
  needsPersonalData: true,
  indexes: [{ collection: CHILD_SAFETY_REPORTS, fields: ['orgId', 'recordedAt', 'reportId'] }],
  retiredIndexes: [{ collection: CHILD_SAFETY_REPORTS, fields: ['orgId', 'recordedAt'] }],
  async apply(event, ctx) {
    const orgId = event.metadata.orgId;
    const erasure = subjectErasureOf(event);
    if (erasure) {
      await eraseSubject(orgId, erasure.subject, ctx);
      if (erasure.consoleUserId) await eraseModerator(orgId, erasure.consoleUserId, ctx);
      return;
    }
    const recorded = recordedAs<ChildSafetyReportRecorded>(event, 'ChildSafetyReportRecorded');
    if (!recorded) return;
    // The sealed fields read as null once the subject's key is forgotten (a rebuild after an erasure).
    const { subject, ...report }: Omit<ChildSafetyReportDoc, 'orgId'> & { subject: string | null } = recorded.data;
    const doc: ChildSafetyReportDoc = { ...report, mediaUrls: report.mediaUrls?.map(redactUrl) ?? null, orgId };
    ctx.put(CHILD_SAFETY_REPORTS, childSafetyReportDocId(orgId, report.reportId), doc as unknown as ReadDocument);
    if (subject !== null) await remember(CHILD_SAFETY_REPORTS_BY_SUBJECT, orgId, subject, report.reportId, ctx);
    // Each reporter's reason is theirs: their erasure blanks it here, whoever's item it was about.
    const reporters = new Set((report.incident?.reports ?? []).flatMap((r) => (r.reporter && r.reason !== null ? [userSubject(r.reporter)] : [])));
    for (const reporter of reporters) await remember(CHILD_SAFETY_REPORTS_BY_REPORTER, orgId, reporter, report.reportId, ctx);
    // The moderator's email is theirs: the erasure of their console account blanks it here.
    if (report.reportedBy?.email) await remember(CHILD_SAFETY_REPORTS_BY_MODERATOR, orgId, report.reportedBy.userId, report.reportId, ctx);
  },
};

/**
 * Report ids per index page: a subject's ids are kept in pages of at most this many (page 0 at the
 * subject's own id, as an earlier release kept all of them there; the others and their count at
 * ids of their own, pageDocId). One array of every id, read, searched and rewritten at each report, cost 62 ms a
 * report at 100,000 (a busy child-safety moderator's years), and on MongoDB stops at the 16 MB
 * document limit at about 430,000.
 */
export const REPORT_IDS_PER_PAGE = 1_000;

type PageCountDoc = { orgId: string; subject: string; pages: number };

/**
 * Page 0 keeps the id an earlier release gave the whole list (`org:subject`); the others, and the
 * count, are named by a JSON array, which no `org:subject` id begins like (an organization id is
 * a slug) and which no subject's id can imitate, whatever characters a platform's user ids hold.
 */
const pageDocId = (orgId: string, subject: string, page: number) => (page === 0 ? subjectDocId(orgId, subject) : JSON.stringify([orgId, subject, page]));
const pageCountDocId = (orgId: string, subject: string) => JSON.stringify([orgId, subject, 'pages']);

/** How many pages the subject's index has (1 for an index an earlier release wrote, or none yet). */
async function pageCount(collection: string, orgId: string, subject: string, ctx: ProjectionContext): Promise<number> {
  return (await ctx.get<PageCountDoc>(collection, pageCountDocId(orgId, subject)))?.pages ?? 1;
}

/**
 * Adds the report to the subject's last page, or starts a new page when it is full: two small
 * documents read, one or two written, however many reports the subject has. A report is recorded
 * once; its event delivered again finds the documents it wrote already reflecting it and is
 * skipped (the unit of work), so no page needs searching for the id.
 */
async function remember(collection: string, orgId: string, subject: string, reportId: string, ctx: ProjectionContext): Promise<void> {
  const pages = await pageCount(collection, orgId, subject, ctx);
  const lastId = pageDocId(orgId, subject, pages - 1);
  const last = (await ctx.get<SubjectReportsDoc>(collection, lastId)) ?? { orgId, subject, reportIds: [] };
  if (last.reportIds.at(-1) === reportId) return;
  if (last.reportIds.length < REPORT_IDS_PER_PAGE) {
    ctx.put(collection, lastId, { ...last, reportIds: [...last.reportIds, reportId] });
    return;
  }
  ctx.put(collection, pageDocId(orgId, subject, pages), { orgId, subject, reportIds: [reportId] });
  ctx.put(collection, pageCountDocId(orgId, subject), { orgId, subject, pages: pages + 1 } satisfies PageCountDoc);
}

/** Every report id of the subject's index, page by page. */
async function* reportIdsOf(collection: string, orgId: string, subject: string, ctx: ProjectionContext): AsyncGenerator<string> {
  const pages = await pageCount(collection, orgId, subject, ctx);
  for (let page = 0; page < pages; page++) yield* (await ctx.get<SubjectReportsDoc>(collection, pageDocId(orgId, subject, page)))?.reportIds ?? [];
}

async function eraseSubject(orgId: string, subject: string, ctx: ProjectionContext): Promise<void> {
  for await (const reportId of reportIdsOf(CHILD_SAFETY_REPORTS_BY_SUBJECT, orgId, subject, ctx)) {
    const id = childSafetyReportDocId(orgId, reportId);
    const doc = await ctx.get<ReadDocument>(CHILD_SAFETY_REPORTS, id);
    if (!doc) continue;
    if (SEALED.every((field) => doc[field] === null)) continue;
    const erased: ReadDocument = { ...doc };
    for (const field of SEALED) erased[field] = null;
    ctx.put(CHILD_SAFETY_REPORTS, id, erased);
  }
  for await (const reportId of reportIdsOf(CHILD_SAFETY_REPORTS_BY_REPORTER, orgId, subject, ctx)) {
    const id = childSafetyReportDocId(orgId, reportId);
    const doc = await ctx.get<ChildSafetyReportDoc & ReadDocument>(CHILD_SAFETY_REPORTS, id);
    const reports = doc?.incident?.reports;
    if (!doc || !reports) continue;
    const theirs = (r: IncidentReport) => r.reporter !== null && userSubject(r.reporter) === subject;
    if (!reports.some((r) => theirs(r) && r.reason !== null)) continue;
    const incident = { ...doc.incident!, reports: reports.map((r) => (theirs(r) ? { ...r, reason: null } : r)) };
    ctx.put(CHILD_SAFETY_REPORTS, id, { ...doc, incident } as unknown as ReadDocument);
  }
}

/** A console account's erasure: its email goes from every report it recorded (its id stays, as the account's does). */
async function eraseModerator(orgId: string, userId: string, ctx: ProjectionContext): Promise<void> {
  for await (const reportId of reportIdsOf(CHILD_SAFETY_REPORTS_BY_MODERATOR, orgId, userId, ctx)) {
    const id = childSafetyReportDocId(orgId, reportId);
    const doc = await ctx.get<ChildSafetyReportDoc & ReadDocument>(CHILD_SAFETY_REPORTS, id);
    if (!doc?.reportedBy || doc.reportedBy.email === null) continue;
    ctx.put(CHILD_SAFETY_REPORTS, id, { ...doc, reportedBy: { ...doc.reportedBy, email: null } } as unknown as ReadDocument);
  }
}
