/**
 * The review module's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), and their personal-data rules. Other modules' code (their
 * `domain/` too) imports these from `#warden/review/contracts`; the module's index re-exports them.
 *
 * ReviewEnqueueRequested is published by the rules engine and enforcement, and owned here, by the
 * module that opens the job.
 */
import { CHILD_SAFETY_QUEUE_ID } from '#warden/catalog/contracts';
import type { Permission } from '#warden/identity/contracts';
import { consoleUserParts, reportReasonParts, subjectField, type PersonalDataRules } from '#warden/kernel';

export type * from './domain/review-job.events.js';
export { DECISION_TYPES, ENQUEUE_SOURCES, REVIEW_JOB_EVENT_TYPES } from './domain/review-job.events.js';
export { reviewJobStream } from './domain/review.streams.js';

/**
 * Whether a viewer with `permissions` may see queue `queueId`, its jobs and their decisions: the
 * child-safety queue only with VIEW_CHILD_SAFETY_DATA (docs/review.md), wherever a queue is shown
 * (the queues page, a job, Insights, Investigate).
 */
export const queueVisibleTo = (permissions: readonly Permission[], queueId: string | null): boolean =>
  queueId !== CHILD_SAFETY_QUEUE_ID || permissions.includes('VIEW_CHILD_SAFETY_DATA');

/** Whether the viewer may see the child-safety queue and what it touched (VIEW_CHILD_SAFETY_DATA), as the queues page shows it. */
export const seesChildSafety = (permissions: readonly Permission[]): boolean => queueVisibleTo(permissions, CHILD_SAFETY_QUEUE_ID);

/**
 * A decision that sends its job to the child-safety queue: it submits a child-safety report, or
 * moves the job there (docs/review.md). Such a job is that queue's from then on, wherever it is
 * shown. Takes a decision as recorded (ReviewJobDecided's data) or as a job's state keeps it.
 */
export const sendsToChildSafety = (decision: { readonly type?: unknown; readonly targetQueueId?: unknown } | null | undefined): boolean =>
  decision?.type === 'SUBMIT_CHILD_SAFETY_REPORT' || decision?.targetQueueId === CHILD_SAFETY_QUEUE_ID;

/**
 * What reporters wrote is sealed under their keys; the rest of a job stays readable after an
 * erasure (docs/gdpr.md). A child-safety report's moderator email is sealed once more under the
 * console user's key, so that erasing their console account erases it there too.
 */
export const REVIEW_PERSONAL_DATA: PersonalDataRules = {
  ReviewJobOpened: { subject: subjectField, fields: ['reasons'] },
  ReviewJobMerged: { subject: subjectField, fields: ['reasons'] },
  ChildSafetyReportRecorded: {
    subject: subjectField,
    fields: ['incident', 'reportedBy', 'mediaUrls'],
    parts: (e) => [
      ...reportReasonParts((e.data['incident'] as { reports?: unknown } | null | undefined)?.reports, ['incident', 'reports']),
      ...consoleUserParts((e.data['reportedBy'] as { userId?: unknown } | null | undefined)?.userId, ['reportedBy'], 'email'),
    ],
  },
};
