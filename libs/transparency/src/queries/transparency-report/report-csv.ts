import type { TransparencyReport } from './transparency-report.query.js';

/**
 * RFC 4180, and safe to open in a spreadsheet: a text starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return would be run as a formula (OWASP, "CSV Injection"), so it gets a leading `'`.
 * Numbers are written as they are: a negative count stays a number.
 */
export const csvField = (value: string | number | boolean | null) => {
  const text = value === null ? '' : typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** One figure a row: section, the figure's dimensions, value; the same figures as the JSON. */
export function reportCsv(report: TransparencyReport): string {
  const rows: Array<Array<string | number | boolean | null>> = [
    ['section', 'policy', 'category', 'source', 'automated_detection', 'automated_decision', 'reporter_type', 'figure', 'value'],
  ];
  const row = (
    section: string,
    figure: string,
    value: number | null,
    dims: Partial<Record<'policy' | 'category' | 'source' | 'det' | 'dec' | 'reporter', string | boolean | null>> = {},
  ) =>
    rows.push([
      section,
      dims.policy ?? null,
      dims.category ?? null,
      dims.source ?? null,
      dims.det ?? null,
      dims.dec ?? null,
      dims.reporter ?? null,
      figure,
      value,
    ]);
  row('period', `${report.from}..${report.to}`, null);
  row('notices', 'total', report.notices.total);
  for (const c of report.notices.byCategory) row('notices', 'count', c.count, { category: c.category });
  for (const r of report.reportsByReporterType)
    row('reports_by_reporter_type', r.trustedFlagger ? 'trusted_flagger' : 'count', r.count, { reporter: r.reporterType });
  row('actions', 'total', report.actions.total);
  for (const a of report.actions.rows)
    row('actions', 'count', a.count, { policy: a.policyId, category: a.category, source: a.source, det: a.automatedDetection, dec: a.automatedDecision });
  row('notice_to_action', 'count', report.noticeToAction.count);
  row('notice_to_action', 'median_seconds', report.noticeToAction.medianSeconds);
  row('notice_to_action', 'p90_seconds', report.noticeToAction.p90Seconds);
  row('complaints', 'received', report.complaints.received);
  row('complaints', 'decided', report.complaints.decided);
  row('complaints', 'overturned', report.complaints.overturned);
  row('complaints', 'median_duration_seconds', report.complaints.medianDurationSeconds);
  row('accounts', 'suspensions', report.accountSuspensions);
  row('accounts', 'terminations', report.accountTerminations);
  return rows.map((r) => r.map(csvField).join(',')).join('\n');
}
