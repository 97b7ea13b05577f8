import { api, ok, type Schemas } from '../../api/client';
import { when } from '../../app/format';
import { useLoad } from '../../app/use-load';
import { ErrorNote } from '../../components/ErrorNote';
import { PageHead } from '../../components/PageHead';
import { TableHead } from '../../components/TableHead';

type Rule = Schemas['RuleSummaryDto'];

const STATUS_TAG: Record<Rule['status'], string> = { LIVE: 'tag', BACKGROUND: 'tag warn', DRAFT: 'tag warn', EXPIRED: 'tag danger' };

/** Today's actions against the daily cap, as a meter when there is a cap. */
function DailyActions({ rule }: { rule: Rule }) {
  if (rule.maxDailyActions === null) return <span>{rule.actionsToday} today (no cap)</span>;
  const label = `${rule.actionsToday} of ${rule.maxDailyActions} today`;
  return (
    <span className="daily">
      <meter
        min={0}
        max={rule.maxDailyActions}
        high={rule.maxDailyActions * 0.8}
        optimum={0}
        value={rule.actionsToday}
        aria-label={`Actions of ${rule.name} today`}
      >
        {label}
      </meter>{' '}
      {label}
      {rule.actionsToday >= rule.maxDailyActions && <span className="tag danger">cap reached</span>}
    </span>
  );
}

function RecentMatches({ rule }: { rule: Rule }) {
  if (rule.recentMatches.length === 0) return <span className="muted">None yet</span>;
  return (
    <details>
      <summary>
        {rule.recentMatches.length} recent, latest {when(rule.recentMatches[0]?.evaluatedAt)}
      </summary>
      <ul className="matches">
        {rule.recentMatches.map((m) => (
          <li key={`${m.itemTypeId}/${m.itemId}/${m.version}/${m.evaluatedAt}`}>
            {when(m.evaluatedAt)} · {m.itemTypeId} {m.itemId} (v{m.version}) · {m.environment.toLowerCase()} ·{' '}
            {m.capped ? <span className="tag warn">capped: no action</span> : m.actionIds.join(', ') || 'no action'}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The organization's rules and what they did today: how close each is to its daily cap, its latest matches. */
export function Rules() {
  const rules = useLoad(() => ok(api.GET('/api/console/v1/rules')), []);
  return (
    <>
      <PageHead title="Rules" loaded={rules} />
      <ErrorNote error={rules.error} />
      {rules.data && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Rules</caption>
            <TableHead columns={['Rule', 'Status', 'Item types', 'Actions', 'Actions today', 'Recent matches']} />
            <tbody>
              {rules.data.rules.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    {r.name} <span className="muted">{r.id}</span>
                  </th>
                  <td>
                    <span className={STATUS_TAG[r.status]}>{r.status.toLowerCase()}</span>
                  </td>
                  <td>{r.itemTypeIds.join(', ')}</td>
                  <td>{r.actionIds.join(', ')}</td>
                  <td>
                    <DailyActions rule={r} />
                  </td>
                  <td>
                    <RecentMatches rule={r} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {rules.data.rules.length === 0 && <p className="muted">The organization has no rule.</p>}
        </div>
      )}
    </>
  );
}
