import { Link } from 'react-router';
import { api, ok } from '../api/client';
import { useSession } from '../app/session';
import { useLoad } from '../app/use-load';
import { age } from '../app/format';
import { ErrorNote } from '../components/ErrorNote';
import { PageHead } from '../components/PageHead';
import { TableHead } from '../components/TableHead';

/** The queues this user may see, with pending counts and oldest age; start reviewing from here. */
export function Queues() {
  const queues = useLoad(() => ok(api.GET('/api/console/v1/queues')), []);
  // Claiming needs DECIDE_MRT: a view-only role (EXTERNAL_MODERATOR) sees the queues, not a button that answers 403.
  const mayReview = useSession().can('DECIDE_MRT');
  return (
    <>
      <PageHead title="Queues" loaded={queues} />
      <ErrorNote error={queues.error} />
      {queues.data && (
        <table className="queues">
          <caption className="sr-only">Review queues</caption>
          <TableHead columns={['Queue', 'Pending', 'Locked', 'Oldest waiting', 'Order']} hidden="Review" />
          <tbody>
            {queues.data.queues.map((q) => (
              <tr key={q.id}>
                <th scope="row">
                  {q.name} <span className="muted">{q.id}</span>
                </th>
                <td>
                  {q.pending}
                  {q.pendingExact ? '' : '+'}
                </td>
                <td>{q.locked}</td>
                <td>{age(q.oldestPendingAgeSeconds)}</td>
                <td>{q.order === 'PRIORITY' ? 'Priority' : 'Oldest first'}</td>
                <td>
                  {mayReview && (
                    <Link className="button primary" to={`/review/${encodeURIComponent(q.id)}`} aria-label={`Start reviewing ${q.name}`}>
                      Start reviewing
                    </Link>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {queues.data?.queues.length === 0 && <p className="muted">No queue is visible to you.</p>}
    </>
  );
}
