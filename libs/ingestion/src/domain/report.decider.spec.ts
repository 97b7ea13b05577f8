import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { reportDecider } from './report.decider.js';
import type { ReportEvent, ReportSubmitted } from './report.events.js';

const report: ReportSubmitted['data'] = {
  reportId: 'rpt_1',
  reporter: { kind: 'user', id: 'u1', typeId: 'user' },
  reportedAt: '2026-01-01T10:00:00Z',
  reportedItem: { id: 'p1', typeId: 'post', version: 0 },
  policyId: 'spam',
  csam: false,
  reason: 'spam!',
  thread: [{ id: 'p0', typeId: 'post', data: { text: 'earlier' } }],
  reportedInThread: [{ id: 'p0', typeId: 'post' }],
  additionalItems: [],
  subject: 'user:u1',
};

const spec = deciderSpecification(reportDecider);

describe('report decider', () => {
  it('records a new report as it was checked', () => {
    spec
      .given([])
      .when({ type: 'SubmitReport', report })
      .then([{ type: 'ReportSubmitted', data: report }]);
  });

  it('records a report once: deciding it again records nothing', () => {
    const recorded: ReportEvent = { type: 'ReportSubmitted', data: report };
    expect(spec.given([recorded]).state).toEqual({ reportId: 'rpt_1' });
    spec.given([recorded]).when({ type: 'SubmitReport', report }).thenNothing();
  });
});
