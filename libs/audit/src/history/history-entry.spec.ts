import { describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { historyEntry } from './history-entry.js';

describe('history entries', () => {
  it('say where a report was routed, and by which rule', () => {
    const routed = (routedBy: { id: string; name: string } | null) =>
      historyEntry({
        ...anEvent('ReportRouted', { reportId: 'rpt_1', item: { id: 'p1', typeId: 'post', typeName: 'Post' }, queueId: 'spam', routedBy }),
        streamName: 'report_routing-acme:rpt_1',
        revision: 0,
        position: 1,
      });
    expect(routed({ id: 'spam-reports', name: 'Spam reports' }).summary).toBe('Report rpt_1 routed to queue spam by routing rule spam-reports');
    expect(routed(null).summary).toBe('Report rpt_1 routed to queue spam');
  });
});
