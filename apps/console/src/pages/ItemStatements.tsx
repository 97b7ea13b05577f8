import { Link, useParams } from 'react-router';
import { api, ok } from '../api/client';
import { when } from '../app/format';
import { useLoad } from '../app/use-load';
import { ErrorNote } from '../components/ErrorNote';
import { PageHead, TypedTitle } from '../components/PageHead';
import { StatementTag } from '../components/StatementState';
import { TableHead } from '../components/TableHead';

/** One item's restricting decisions with their statements of reasons and where their submission stands. */
export function ItemStatements() {
  const { typeId = '', itemId = '' } = useParams();
  const loaded = useLoad(
    () => ok(api.GET('/api/console/v1/transparency/items/{typeId}/{itemId}/statements', { params: { path: { typeId, itemId } } })),
    [typeId, itemId],
  );
  const statements = loaded.data?.statements;
  return (
    <>
      <PageHead title={<TypedTitle noun="Item" typeId={typeId} id={itemId} />} loaded={loaded} />
      <ErrorNote error={loaded.error} />
      {statements && (
        <div className="table-wrap">
          <table className="statements">
            <caption>Statements of reasons of the item's decisions, newest first</caption>
            <TableHead columns={['Decided', 'Action', 'Policies', 'Category', 'Source', 'Automated', 'Submission', 'PUID']} />
            <tbody>
              {statements.map((s) => (
                <tr key={s.puid}>
                  <th scope="row">{when(s.decidedAt)}</th>
                  <td>
                    {s.actionId} <span className="muted">({s.trigger.replaceAll('-', ' ')})</span>
                  </td>
                  <td>{s.policyIds.join(', ') || '—'}</td>
                  <td>{s.statement ? String(s.statement['category']) : s.problems.join('; ')}</td>
                  <td>{s.statement ? String(s.statement['source_type']) : '—'}</td>
                  <td>
                    {s.statement
                      ? `detection ${String(s.statement['automated_detection'])}, ${String(s.statement['automated_decision']).replace('AUTOMATED_DECISION_', '').toLowerCase()}`
                      : '—'}
                  </td>
                  <td>
                    <StatementTag statement={s} />
                    {s.submission.lastError && <div className="muted last-error">{s.submission.lastError}</div>}
                  </td>
                  <td className="mono">{s.puid}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {statements.length === 0 && <p className="muted">No restricting decision on this item.</p>}
        </div>
      )}
      <p>
        <Link to="/transparency">Back to transparency</Link>
      </p>
    </>
  );
}
