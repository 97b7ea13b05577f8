import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { reportRoutingDecider } from './report-routing.decider.js';
import type { ReportRouted, ReportRoutingEvent } from './report-routing.events.js';

const route: ReportRouted['data'] = {
  reportId: 'rpt_1',
  item: { id: 'p1', typeId: 'post', typeName: 'Post' },
  version: 0,
  queueId: 'spam-queue',
  routedBy: { id: 'r1', name: 'Spam reports' },
  report: {
    reporter: { kind: 'user', id: 'u1', typeId: 'user' },
    reportedAt: '2026-01-01T10:00:00Z',
    recordedAt: '2026-01-01T10:00:01Z',
    hasReason: true,
    policyId: 'spam',
    csam: false,
  },
  policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
  reason: 'spam!',
  subject: 'user:u1',
};

const spec = deciderSpecification(reportRoutingDecider);

describe('report routing decider', () => {
  it('records where a report goes', () => {
    spec
      .given([])
      .when({ type: 'RouteReport', route })
      .then([{ type: 'ReportRouted', data: route }]);
  });

  it('routes a report once: a second routing (to another queue) records nothing', () => {
    const recorded: ReportRoutingEvent = { type: 'ReportRouted', data: route };
    expect(spec.given([recorded]).state).toEqual({ routed: true });
    spec
      .given([recorded])
      .when({ type: 'RouteReport', route: { ...route, queueId: 'default', routedBy: null } })
      .thenNothing();
  });
});
