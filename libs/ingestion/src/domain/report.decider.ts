import type { Decider } from '#warden/kernel';
import type { ReportEvent, ReportSubmitted } from './report.events.js';

/** Records a checked report (docs/review.md, "`POST /api/v1/report`") under the id the service assigned it. */
export interface SubmitReport {
  readonly type: 'SubmitReport';
  readonly report: ReportSubmitted['data'];
}

export type ReportCommand = SubmitReport;

export interface ReportState {
  readonly reportId: string | null;
}

/**
 * One user report per stream, named by its id (assigned by the service, never reused): a report
 * is recorded once; deciding it again (a retried command) records nothing more, so what the
 * reporter said is never overwritten.
 */
export const reportDecider: Decider<ReportCommand, ReportState, ReportEvent> = {
  eventTypes: { ReportSubmitted: true },
  initialState: { reportId: null },

  decide(command, state) {
    if (state.reportId !== null) return [];
    return [{ type: 'ReportSubmitted', data: command.report }];
  },

  evolve(_state, event) {
    return { reportId: event.data.reportId };
  },
};
