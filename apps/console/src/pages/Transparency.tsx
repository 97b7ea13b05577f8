import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ok } from '../api/client';
import { isoDay, lastThirtyDays, when } from '../app/format';
import { useSession } from '../app/session';
import { useLoad } from '../app/use-load';
import { ErrorNote } from '../components/ErrorNote';
import { PageHead } from '../components/PageHead';
import { StatementTag } from '../components/StatementState';
import { TableHead } from '../components/TableHead';

/** A period's query string, as the report and statements routes take it. */
const periodQuery = (from: string, to: string) => new URLSearchParams({ from, to }).toString();

/**
 * DSA transparency (docs/transparency.md): the report of a chosen period to download, as JSON or
 * CSV, and the period's statements of reasons with where their submission stands.
 */
export function Transparency() {
  const today = isoDay(Date.now());
  const [initial] = useState(lastThirtyDays);
  const [from, setFrom] = useState(initial.from);
  const [to, setTo] = useState(initial.to);
  const [period, setPeriod] = useState({ from, to });
  const [item, setItem] = useState({ typeId: '', itemId: '' });
  const navigate = useNavigate();
  // An item's statements are review data (VIEW_MRT): the look-up and the links only for those who may open them.
  const mayOpenItems = useSession().can('VIEW_MRT');
  const report = useLoad(() => ok(api.GET('/api/console/v1/transparency/report', { params: { query: period } })), [period.from, period.to]);
  const statements = useLoad(
    () => ok(api.GET('/api/console/v1/transparency/statements', { params: { query: { ...period, limit: 100 } } })),
    [period.from, period.to],
  );
  const query = periodQuery(period.from, period.to);

  function choose(event: FormEvent) {
    event.preventDefault();
    setPeriod({ from, to });
  }
  function lookUp(event: FormEvent) {
    event.preventDefault();
    navigate(`/transparency/items/${encodeURIComponent(item.typeId.trim())}/${encodeURIComponent(item.itemId.trim())}`);
  }

  return (
    <>
      <PageHead
        title="Transparency"
        loaded={{
          loading: report.loading || statements.loading,
          reload: () => {
            report.reload();
            statements.reload();
          },
        }}
      />
      <form className="card filters" aria-label="Report period" onSubmit={choose}>
        <label>
          From (UTC day)
          <input type="date" required value={from} max={to} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To (UTC day)
          <input type="date" required value={to} min={from} max={today} onChange={(e) => setTo(e.target.value)} />
        </label>
        <button type="submit" className="primary">
          Show period
        </button>
      </form>
      <ErrorNote error={report.error ?? statements.error} />

      {report.data && (
        <section className="card" aria-labelledby="report-heading">
          <h2 id="report-heading">
            Report {report.data.from} – {report.data.to}
          </h2>
          <p>
            <a href={`/api/console/v1/transparency/report?${query}`} download={`transparency-report-${report.data.from}-${report.data.to}.json`}>
              Download report (JSON)
            </a>{' '}
            ·{' '}
            <a href={`/api/console/v1/transparency/report/csv?${query}`} download={`transparency-report-${report.data.from}-${report.data.to}.csv`}>
              Download report (CSV)
            </a>
          </p>
          <dl className="figures">
            <dt>Notices received</dt>
            <dd>{report.data.notices.total}</dd>
            <dt>Restricting actions</dt>
            <dd>{report.data.actions.total}</dd>
            <dt>Complaints received / decided / overturned</dt>
            <dd>
              {report.data.complaints.received} / {report.data.complaints.decided} / {report.data.complaints.overturned}
            </dd>
            <dt>Account suspensions</dt>
            <dd>{report.data.accountSuspensions}</dd>
          </dl>
        </section>
      )}

      {mayOpenItems && (
        <form className="card filters" aria-label="Statements of an item" onSubmit={lookUp}>
          <label>
            Item type
            <input required value={item.typeId} onChange={(e) => setItem({ ...item, typeId: e.target.value })} />
          </label>
          <label>
            Item id
            <input required value={item.itemId} onChange={(e) => setItem({ ...item, itemId: e.target.value })} />
          </label>
          <button type="submit">Show the item's statements</button>
        </form>
      )}

      {statements.data && (
        <div className="table-wrap">
          <table className="statements">
            <caption>
              Statements of reasons of the period, oldest first
              {statements.data.nextCursor ? ` (the first ${statements.data.statements.length}; the CLI lists them all)` : ''}
            </caption>
            <TableHead columns={['Decided', 'Item', 'Action', 'Category', 'Source', 'Submission']} />
            <tbody>
              {statements.data.statements.map((s) => (
                <tr key={s.puid}>
                  <td>{when(s.decidedAt)}</td>
                  <th scope="row">
                    {mayOpenItems ? (
                      <Link to={`/transparency/items/${encodeURIComponent(s.item.typeId)}/${encodeURIComponent(s.item.id)}`}>
                        {s.item.typeId} {s.item.id}
                      </Link>
                    ) : (
                      `${s.item.typeId} ${s.item.id}`
                    )}
                  </th>
                  <td>
                    {s.actionId} <span className="muted">({s.trigger.replaceAll('-', ' ')})</span>
                  </td>
                  <td>{s.statement ? String(s.statement['category']) : '—'}</td>
                  <td>{s.statement ? String(s.statement['source_type']) : '—'}</td>
                  <td>
                    <StatementTag statement={s} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {statements.data.statements.length === 0 && <p className="muted">No restricting decision in the period.</p>}
        </div>
      )}
    </>
  );
}
