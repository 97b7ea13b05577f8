import { type FormEvent, useState } from 'react';
import { BarElement, CategoryScale, Chart, type ChartData, type ChartOptions, Legend, LinearScale, LineElement, PointElement, Tooltip } from 'chart.js';
import { Bar, Line } from 'react-chartjs-2';
import { api, ok } from '../api/client';
import type { components } from '../api/schema.gen';
import { lastThirtyDays } from '../app/format';
import { useLoad } from '../app/use-load';
import { ErrorNote } from '../components/ErrorNote';
import { PageHead } from '../components/PageHead';
import { ChartCard } from './insights/ChartCard';

// Only the parts the charts use: Chart.js is tree-shaken to them (docs/console.md, "Insights").
Chart.register(CategoryScale, LinearScale, BarElement, LineElement, PointElement, Tooltip, Legend);

type Report = components['schemas']['InsightsReportDto'];

const PALETTE = ['#1f6feb', '#d4542b', '#2da44e', '#8250df', '#bf8700', '#0a7d8c', '#cf222e', '#6e7781', '#e16f24', '#1b7c83'];
const color = (i: number) => PALETTE[i % PALETTE.length]!;
const hours = (seconds: number | null) => (seconds === null ? null : Math.round((seconds / 3600) * 100) / 100);
const minutes = (seconds: number | null) => (seconds === null ? null : Math.round((seconds / 60) * 10) / 10);
const percent = (rate: number | null) => (rate === null ? null : Math.round(rate * 1000) / 10);

// No animation: the figures are what matters, and motion is kept for those who ask for it.
const base = { animation: false, responsive: true, maintainAspectRatio: false } as const;
const stacked: ChartOptions<'bar'> = { ...base, scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } } };
const grouped: ChartOptions<'bar'> = { ...base, scales: { y: { beginAtZero: true } } };
const lines: ChartOptions<'line'> = { ...base, scales: { y: { beginAtZero: true } } };

function bars(labels: string[], series: Array<{ label: string; data: Array<number | null> }>): ChartData<'bar'> {
  return { labels, datasets: series.map((s, i) => ({ ...s, backgroundColor: color(i) })) };
}
function lineData(labels: string[], series: Array<{ label: string; data: Array<number | null>; dashed?: boolean; tint?: number }>): ChartData<'line'> {
  return {
    labels,
    datasets: series.map((s, i) => ({
      label: s.label,
      data: s.data,
      borderColor: color(s.tint ?? i),
      backgroundColor: color(s.tint ?? i),
      borderDash: s.dashed ? [6, 4] : [],
      pointRadius: s.dashed ? 0 : 2,
    })),
  };
}

/**
 * Insights (docs/console.md, "Insights"): how moderation goes, in charts drawn from the daily
 * buckets of GET /api/console/v1/insights, each with its figures as a table and a CSV file.
 * Loaded on demand (routes.tsx), so the review screen never downloads the chart library.
 */
export function Insights() {
  const [form, setForm] = useState(() => ({ ...lastThirtyDays(), queue: '' }));
  const [filters, setFilters] = useState(form);
  const report = useLoad(
    () =>
      ok(
        api.GET('/api/console/v1/insights', { params: { query: { from: filters.from, to: filters.to, ...(filters.queue ? { queue: filters.queue } : {}) } } }),
      ),
    [filters.from, filters.to, filters.queue],
  );

  function apply(event: FormEvent) {
    event.preventDefault();
    setFilters(form);
  }

  return (
    <>
      <PageHead title="Insights" loaded={report} />
      <form className="card filters" aria-label="Insights filters" onSubmit={apply}>
        <label>
          From (UTC day)
          <input type="date" required value={form.from} max={form.to} onChange={(e) => setForm({ ...form, from: e.target.value })} />
        </label>
        <label>
          To (UTC day)
          <input type="date" required value={form.to} min={form.from} onChange={(e) => setForm({ ...form, to: e.target.value })} />
        </label>
        <label>
          Queue
          <select value={form.queue} onChange={(e) => setForm({ ...form, queue: e.target.value })}>
            <option value="">Every queue</option>
            {(report.data?.queues ?? []).map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary">
          Show
        </button>
      </form>
      <ErrorNote error={report.error} />
      {report.data && <Charts report={report.data} />}
    </>
  );
}

function Charts({ report }: { report: Report }) {
  const days = report.days;
  const file = (name: string) => `insights-${name}-${report.from}-${report.to}${report.queueId ? `-${report.queueId}` : ''}.csv`;
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

  const sources = [
    { key: 'rule', label: 'Rule' },
    { key: 'moderator', label: 'Moderator' },
    { key: 'threshold', label: 'Strike threshold' },
    { key: 'executed', label: 'Executed by the platform' },
  ] as const;
  const policies = report.actionsByPolicy.policies;
  const queues = report.queueDepth.queues;
  const moderators = report.decisionsByModerator.moderators;
  const rules = report.ruleActions.rules;
  const share = report.automation.automatedShare;

  return (
    <div className="charts">
      <ChartCard
        id="actions-by-source"
        title="Actions per day by source"
        columns={['Day', ...sources.map((s) => s.label)]}
        rows={report.actionsBySource.map((r) => [r.day, ...sources.map((s) => r[s.key])])}
        fileName={file('actions-by-source')}
        empty={report.actionsBySource.every((r) => sources.every((s) => r[s.key] === 0))}
      >
        <Bar
          options={stacked}
          data={bars(
            days,
            sources.map((s) => ({ label: s.label, data: report.actionsBySource.map((r) => r[s.key]) })),
          )}
        />
      </ChartCard>

      <ChartCard
        id="actions-by-policy"
        title="Actions per day by policy"
        note="An action naming two policies counts under both."
        columns={['Day', ...policies.map((p) => p.name)]}
        rows={report.actionsByPolicy.rows.map((r) => [r.day, ...r.counts])}
        fileName={file('actions-by-policy')}
        empty={policies.length === 0}
      >
        <Bar
          options={stacked}
          data={bars(
            days,
            policies.map((p, i) => ({ label: p.name, data: report.actionsByPolicy.rows.map((r) => r.counts[i] ?? 0) })),
          )}
        />
      </ChartCard>

      <ChartCard
        id="queue-depth"
        title="Queue depth at the end of each day"
        columns={['Day', ...queues.map((q) => q.name)]}
        rows={report.queueDepth.rows.map((r) => [r.day, ...r.depth])}
        fileName={file('queue-depth')}
        empty={queues.length === 0}
      >
        <Line
          options={lines}
          data={lineData(
            days,
            queues.map((q, i) => ({ label: q.name, data: report.queueDepth.rows.map((r) => r.depth[i] ?? 0) })),
          )}
        />
      </ChartCard>

      <ChartCard
        id="oldest-wait"
        title="Oldest waiting job, hours"
        note="The longest any job of the queue had waited during the day."
        columns={['Day', ...queues.map((q) => `${q.name} (hours)`)]}
        rows={report.queueDepth.rows.map((r) => [r.day, ...r.oldestWaitSeconds.map(hours)])}
        fileName={file('oldest-wait')}
        empty={queues.length === 0}
      >
        <Line
          options={lines}
          data={lineData(
            days,
            queues.map((q, i) => ({ label: q.name, data: report.queueDepth.rows.map((r) => hours(r.oldestWaitSeconds[i] ?? 0)) })),
          )}
        />
      </ChartCard>

      <ChartCard
        id="time-to-decision-by-queue"
        title="Time to decision per queue, minutes"
        note="p50 and p90 of moderators' decisions in the period, from the job's opening (log-spaced bins: at most 19% above from a minute on, more for shorter decisions)."
        columns={['Queue', 'Decisions', 'p50 (minutes)', 'p90 (minutes)']}
        rows={report.timeToDecision.byQueue.map((q) => [q.name, q.decided, minutes(q.p50Seconds), minutes(q.p90Seconds)])}
        fileName={file('time-to-decision-by-queue')}
        empty={report.timeToDecision.byQueue.every((q) => q.decided === 0)}
      >
        <Bar
          options={grouped}
          data={bars(
            report.timeToDecision.byQueue.map((q) => q.name),
            [
              { label: 'p50', data: report.timeToDecision.byQueue.map((q) => minutes(q.p50Seconds)) },
              { label: 'p90', data: report.timeToDecision.byQueue.map((q) => minutes(q.p90Seconds)) },
            ],
          )}
        />
      </ChartCard>

      <ChartCard
        id="time-to-decision-by-day"
        title="Time to decision per day, minutes"
        columns={['Day', 'Decisions', 'p50 (minutes)', 'p90 (minutes)']}
        rows={report.timeToDecision.byDay.map((d) => [d.day, d.decided, minutes(d.p50Seconds), minutes(d.p90Seconds)])}
        fileName={file('time-to-decision-by-day')}
        empty={report.timeToDecision.byDay.every((d) => d.decided === 0)}
      >
        <Line
          options={lines}
          data={lineData(days, [
            { label: 'p50', data: report.timeToDecision.byDay.map((d) => minutes(d.p50Seconds)) },
            { label: 'p90', data: report.timeToDecision.byDay.map((d) => minutes(d.p90Seconds)) },
          ])}
        />
      </ChartCard>

      <ChartCard
        id="decisions-by-moderator"
        title="Decisions per moderator per day"
        columns={['Day', ...moderators]}
        rows={report.decisionsByModerator.rows.map((r) => [r.day, ...r.counts])}
        fileName={file('decisions-by-moderator')}
        empty={moderators.length === 0}
      >
        <Bar
          options={stacked}
          data={bars(
            days,
            moderators.map((m, i) => ({ label: m, data: report.decisionsByModerator.rows.map((r) => r.counts[i] ?? 0) })),
          )}
        />
      </ChartCard>

      {(['byPolicy', 'byRule'] as const).map((by) => {
        const rows = report.appealOverturns[by];
        const what = by === 'byPolicy' ? 'policy' : 'rule';
        return (
          <ChartCard
            key={by}
            id={`overturns-${what}`}
            title={`Appeal overturn rate per ${what}, %`}
            note="Appeals decided in the period; overturned means accepted."
            columns={[what === 'policy' ? 'Policy' : 'Rule', 'Decided', 'Overturned', 'Overturn rate (%)']}
            rows={rows.map((o) => [o.name, o.decided, o.overturned, percent(o.overturnRate)])}
            fileName={file(`overturns-by-${what}`)}
            empty={rows.length === 0}
          >
            <Bar
              options={{ ...grouped, scales: { y: { beginAtZero: true, max: 100 } } }}
              data={bars(
                rows.map((o) => o.name),
                [{ label: 'Overturn rate (%)', data: rows.map((o) => percent(o.overturnRate)) }],
              )}
            />
          </ChartCard>
        );
      })}

      <ChartCard
        id="automation"
        title="Automated and human actions per day"
        note={`Automated: rules and strike thresholds; human: moderators and actions the platform executed. Automated share of the period: ${share === null ? '—' : `${percent(share)}%`}.`}
        columns={['Day', 'Automated', 'Human']}
        rows={report.automation.rows.map((r) => [r.day, r.automated, r.human])}
        fileName={file('automation')}
        empty={report.automation.automated + report.automation.human === 0}
      >
        <Bar
          options={stacked}
          data={bars(days, [
            { label: 'Automated', data: report.automation.rows.map((r) => r.automated) },
            { label: 'Human', data: report.automation.rows.map((r) => r.human) },
          ])}
        />
      </ChartCard>

      <ChartCard
        id="rule-actions"
        title="Rules' daily actions against maxDailyActions"
        note="A capped rule's actions as its cap counts them; the dashed line is its cap."
        columns={['Day', ...rules.map((r) => `${r.name}${r.maxDailyActions === null ? '' : ` (cap ${r.maxDailyActions})`}`)]}
        rows={report.ruleActions.rows.map((r) => [r.day, ...r.counts])}
        fileName={file('rule-actions')}
        empty={rules.length === 0 || sum(report.ruleActions.rows.flatMap((r) => r.counts)) === 0}
      >
        <Line
          options={lines}
          data={lineData(days, [
            ...rules.map((r, i) => ({ label: r.name, data: report.ruleActions.rows.map((row) => row.counts[i] ?? 0), tint: i })),
            ...rules.flatMap((r, i) =>
              r.maxDailyActions === null ? [] : [{ label: `${r.name} cap`, data: days.map(() => r.maxDailyActions), dashed: true, tint: i }],
            ),
          ])}
        />
      </ChartCard>
    </div>
  );
}

export default Insights;
