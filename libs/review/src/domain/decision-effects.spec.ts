import { describe, expect, it } from 'vitest';
import type { ActionDefinition, ItemTypeDefinition } from '#warden/catalog/contracts';
import {
  childSafetyReport,
  decisionCallbacks,
  decisionDeliveryId,
  MAX_REASON_SENT,
  MAX_REPORTS_SENT,
  mediaUrls,
  mergedReports,
  REPORTS_SENT_BYTES,
  reportsToSend,
  type SentReport,
} from './decision-effects.js';
import { jobRequestsOf } from './job-requests.js';
import type { EnqueueRequest, ReviewJobEvent } from './review-job.events.js';

const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
const reporter = (id: string) => ({ kind: 'user' as const, id, typeId: 'user' });
const reportRequest = (reportId: string, fromJobId: string | null = null, hasReason = true): EnqueueRequest => ({
  requestId: reportId,
  source: fromJobId ? 'MRT_JOB' : 'REPORT',
  at: '2026-01-01T00:00:00.000Z',
  version: 2,
  report: { reportId, reporter: reporter(`u-${reportId}`), reportedAt: '2026-01-01T00:00:00.000Z', hasReason, policyId: null, csam: false },
  action: null,
  policies: [],
  routedBy: null,
  fromJobId,
});
const opened: ReviewJobEvent = {
  type: 'ReviewJobOpened',
  data: {
    jobId: 'j2',
    queueId: 'spam',
    generation: 0,
    item,
    request: reportRequest('r3'),
    carried: [reportRequest('r1', 'j1'), reportRequest('r2', 'j1', false)],
    openedAt: '2026-01-01T00:00:00.000Z',
    reasons: { r3: 'scam link' },
    subject: 'user:u-r3',
  },
};
const action = (id: string, parameters: ActionDefinition['parameters']): ActionDefinition => ({
  id,
  name: id,
  description: null,
  kind: 'CUSTOMER_DEFINED_ACTION',
  itemTypeIds: [],
  applyUserStrikes: false,
  penalty: 'LOW',
  callback: null,
  body: { severity: id },
  parameters,
});

describe('decision effects', () => {
  it("merged reports take their reasons from this job's stream, or from the job they were carried from", () => {
    const reports = mergedReports(jobRequestsOf([opened]), { j1: { r1: 'spam', r2: 'ignored: no reason given' } });
    expect(reports.map((r) => [r.reportId, r.reporter.id, r.reason])).toEqual([
      ['r1', 'u-r1', 'spam'],
      ['r2', 'u-r2', null],
      ['r3', 'u-r3', 'scam link'],
    ]);
  });

  it('one callback per action: derived delivery id, its own parameters, the report history under the item subject', () => {
    const reports = mergedReports(jobRequestsOf([opened]), { j1: { r1: 'spam' } });
    const callbacks = decisionCallbacks({
      orgId: 'acme',
      decisionId: 'dec1',
      item,
      actions: [action('remove', [{ name: 'durationDays', type: 'NUMBER', required: false }]), action('label', [])],
      policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
      actor: { userId: 'mod-1', email: 'mod@acme.example' },
      note: 'n',
      reason: 'r',
      parameters: { durationDays: 7 },
      decidedItem: { version: 2, data: {}, creator: { id: 'u9', typeId: 'user' } },
      reports,
    });
    expect(callbacks.map((c) => c.deliveryId)).toEqual([decisionDeliveryId('acme', 'dec1', 'remove'), decisionDeliveryId('acme', 'dec1', 'label')]);
    expect(callbacks[0]).toMatchObject({
      trigger: 'decision',
      rules: [],
      custom: { severity: 'remove' },
      parameters: { durationDays: 7 },
      creator: { id: 'u9', typeId: 'user' },
      subject: 'user:u9',
      actor: { userId: 'mod-1', email: 'mod@acme.example' },
      reportHistory: [
        { reason: 'spam', reporter: reporter('u-r1') },
        { reason: null, reporter: reporter('u-r2') },
        { reason: 'scam link', reporter: reporter('u-r3') },
      ],
    });
    expect(callbacks[1]!.parameters).toEqual({});
  });

  /** The child-safety report of decision dec1 on job j2 by moderator m1, of this item version, these reports and reason. */
  const childSafetyReportOf = (input: Pick<Parameters<typeof childSafetyReport>[0], 'decidedItem' | 'reports' | 'reason'>) =>
    childSafetyReport({
      orgId: 'acme',
      decisionId: 'dec1',
      jobId: 'j2',
      item,
      itemType: undefined,
      note: null,
      reportedBy: { userId: 'm1', email: 'mod@acme.example' },
      now: '2026-01-02T00:00:00.000Z',
      ...input,
    });

  /** The callback of a decision taking one action on an item without a creator, sending `reports`. */
  const removeCallback = (reports: readonly SentReport[]) =>
    decisionCallbacks({
      orgId: 'acme',
      decisionId: 'dec1',
      item,
      actions: [action('remove', [])],
      policies: [],
      actor: { userId: 'mod-1', email: 'mod@acme.example' },
      note: null,
      reason: null,
      parameters: {},
      decidedItem: { version: 0, data: null, creator: null },
      reports,
    })[0]!;

  it('no reports: no report history; no creator: the item is the subject', () => {
    const callback = removeCallback([]);
    expect(callback).toMatchObject({ reportHistory: null, subject: 'post:p1', creator: null });
  });

  const merged = (i: number, reason: string | null, csam = false) => ({
    reportId: `r${i}`,
    reporter: reporter(`u${i}`),
    reportedAt: '2026-01-01T00:00:00.000Z',
    reason,
    policyId: null,
    csam,
    fromJobId: null,
  });

  it('a mass-reported item sends its newest reports, each reason cut (code points, never half a pair), in its callbacks and child-safety report', () => {
    // The last one: a reason far over the cut, of characters outside the BMP (two code units each).
    const many = Array.from({ length: MAX_REPORTS_SENT + 50 }, (_, i) =>
      merged(i, i === MAX_REPORTS_SENT + 49 ? '😀'.repeat(MAX_REASON_SENT * 3) : `reason ${i}`),
    );
    const sent = reportsToSend(many, 2);
    const history = removeCallback(sent).reportHistory!;
    expect(history).toHaveLength(MAX_REPORTS_SENT);
    expect(history[0]).toEqual({ reason: 'reason 50', reporter: reporter('u50') });
    const cut = history.at(-1)!.reason!;
    expect(Array.from(cut)).toHaveLength(MAX_REASON_SENT);
    expect(cut).toBe('😀'.repeat(MAX_REASON_SENT));
    const report = childSafetyReportOf({ decidedItem: { version: 0, data: null, creator: null }, reports: sent, reason: null });
    expect(report.reporters).toHaveLength(MAX_REPORTS_SENT);
    expect(report.incident.reports).toEqual(history.map((r) => ({ reporter: r.reporter, reason: r.reason })));
  });

  it("the copies of one decision share a byte budget: long reasons send fewer reports, the newest, whatever the actions' number", () => {
    // 100 reporters who each pasted 1,000 characters of three bytes each.
    const long = Array.from({ length: MAX_REPORTS_SENT }, (_, i) => merged(i, '語'.repeat(MAX_REASON_SENT)));
    for (const copies of [1, 3, 6]) {
      const sent = reportsToSend(long, copies);
      const bytes = sent.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r)), 0);
      expect(bytes * copies).toBeLessThanOrEqual(REPORTS_SENT_BYTES);
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.length).toBeLessThan(MAX_REPORTS_SENT);
      // The newest ones, in merge order.
      expect(sent.map((r) => r.reporter.id)).toEqual(long.slice(-sent.length).map((r) => r.reporter.id));
    }
  });

  it('reports flagged as child sexual abuse material are sent however many reports came after them', () => {
    const reports = [merged(0, 'csam', true), merged(1, 'spam'), merged(2, 'csam too', true), ...Array.from({ length: 500 }, (_, i) => merged(i + 3, 'spam'))];
    const sent = reportsToSend(reports, 2);
    expect(sent).toHaveLength(MAX_REPORTS_SENT);
    // In merge order: the flagged ones first (the oldest), then the newest others.
    expect(sent.slice(0, 2)).toEqual([
      { reason: 'csam', reporter: reporter('u0') },
      { reason: 'csam too', reporter: reporter('u2') },
    ]);
    expect(sent.slice(2).map((r) => r.reporter.id)).toEqual(reports.slice(-(MAX_REPORTS_SENT - 2)).map((r) => r.reporter.id));
  });

  it("media URLs: the item type's IMAGE, VIDEO and AUDIO fields and data.images, once each", () => {
    const itemType = {
      fields: [
        { name: 'cover', type: 'IMAGE' },
        { name: 'clip', type: 'VIDEO' },
        { name: 'text', type: 'STRING' },
      ],
    } as unknown as ItemTypeDefinition;
    expect(mediaUrls({ images: ['https://x/1.jpg'], cover: 'https://x/1.jpg', clip: ['https://x/2.mp4'], text: 'https://not-media' }, itemType)).toEqual([
      'https://x/1.jpg',
      'https://x/2.mp4',
    ]);
    expect(mediaUrls(null, itemType)).toEqual([]);
  });

  it('a child-safety report names the item version, creator, reporters and their reasons, and the moderator', () => {
    const report = childSafetyReportOf({
      decidedItem: { version: 2, data: { images: ['https://x/1.jpg'] }, creator: null },
      reports: mergedReports(jobRequestsOf([opened]), {}),
      reason: 'known',
    });
    expect(report).toMatchObject({
      jobId: 'j2',
      item: { ...item, version: 2 },
      reporters: [reporter('u-r1'), reporter('u-r2'), reporter('u-r3')],
      incident: { moderatorReason: 'known', note: null },
      mediaUrls: ['https://x/1.jpg'],
      recordedAt: '2026-01-02T00:00:00.000Z',
      subject: 'post:p1',
    });
    // Each reason beside its reporter, so that each is sealed under its reporter's key.
    expect(report.incident.reports).toEqual(mergedReports(jobRequestsOf([opened]), {}).map((r) => ({ reporter: r.reporter, reason: r.reason })));
    expect(report.incident.reports.map((r) => r.reason)).toContain('scam link');
  });
});
