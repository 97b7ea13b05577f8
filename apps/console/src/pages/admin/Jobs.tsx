import { useState } from 'react';
import { Link } from 'react-router';
import { api, ok, type Schemas } from '../../api/client';
import { age, when } from '../../app/format';
import { useSession } from '../../app/session';
import { useLoad } from '../../app/use-load';
import { ErrorNote } from '../../components/ErrorNote';
import { JobActions, type JobState, nameOf, useUsersIfAllowed } from '../../components/JobActions';
import { Pager } from '../../components/Pager';
import { Notice, PageHead } from '../../components/PageHead';
import { TableHead } from '../../components/TableHead';

type Job = Schemas['ReviewJobSummaryDto'];
type User = Schemas['UserDto'];

const PAGE_SIZE = 50;
const STATES: ReadonlyArray<{ value: JobState; label: string }> = [
  { value: 'PENDING', label: 'Pending' },
  { value: 'LOCKED', label: 'Locked' },
  { value: 'ASSIGNED', label: 'Assigned' },
  { value: 'CLOSED', label: 'Closed' },
];
const AGES = [
  { seconds: 0, label: 'Any age' },
  { seconds: 3600, label: 'Older than 1 hour' },
  { seconds: 86_400, label: 'Older than 1 day' },
  { seconds: 7 * 86_400, label: 'Older than 7 days' },
] as const;

/** What a job's state means right now: a LOCKED job whose lock ran out is waiting again. */
function stateText(job: Job): string {
  if (job.state === 'LOCKED' && job.lock && Date.parse(job.lock.expiresAt) < Date.now()) return 'Lock expired';
  if (job.state === 'CLOSED' && job.decision) return `Closed (${job.decision.type.toLowerCase().replaceAll('_', ' ')})`;
  return STATES.find((s) => s.value === job.state)?.label ?? job.state;
}

function holderText(job: Job, users: readonly User[] | null | undefined): string {
  if (job.state === 'LOCKED' && job.lock) return `${nameOf(job.lock.moderatorId, users)} (lock until ${new Date(job.lock.expiresAt).toLocaleTimeString()})`;
  if (job.assignedTo) return `Assigned to ${nameOf(job.assignedTo, users)}`;
  return '—';
}

function JobRow({ job, users, onChanged }: { job: Job; users: readonly User[] | null | undefined; onChanged(message: string): void }) {
  return (
    <tr>
      <th scope="row">
        {job.item.typeName} <span className="muted">{job.item.id}</span>
      </th>
      <td>{job.queueId}</td>
      <td>{stateText(job)}</td>
      <td>
        {when(job.openedAt)}
        <div className="muted">{age((Date.now() - Date.parse(job.openedAt)) / 1000)} ago</div>
      </td>
      <td>{holderText(job, users)}</td>
      <td>{job.reportCount}</td>
      <td className="row-actions">
        <Link to={`/jobs/${encodeURIComponent(job.jobId)}`} aria-label={`View job ${job.jobId}`}>
          View
        </Link>{' '}
        <JobActions jobId={job.jobId} state={job.state} users={users ?? null} onChanged={onChanged} />
      </td>
    </tr>
  );
}

/**
 * Managers' view of the review work: every job of a queue, filtered by state and age, with the
 * moves a manager has (release a held job, reserve one for a moderator).
 */
export function Jobs() {
  const session = useSession();
  // Without VIEW_CHILD_SAFETY_DATA the server lists one queue at a time (it cannot leave the child-safety queue out of a page).
  const mayListAll = session.can('VIEW_CHILD_SAFETY_DATA');
  const queues = useLoad(() => ok(api.GET('/api/console/v1/queues')), []);
  const users = useUsersIfAllowed(session.can('MANAGE_USERS'));
  const [chosenQueue, setChosenQueue] = useState<string | null>(null);
  const [state, setState] = useState<JobState | ''>('');
  const [olderThan, setOlderThan] = useState(0);
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useState<string | null>(null);
  const queueId = chosenQueue ?? (mayListAll ? '' : (queues.data?.queues[0]?.id ?? ''));
  const ready = mayListAll || queueId !== '';
  const jobs = useLoad(() => {
    if (!ready) return Promise.resolve(undefined);
    // The server counts and pages what is old enough, so every page and the total agree with the filter.
    const openedBefore = olderThan > 0 ? new Date(Date.now() - olderThan * 1000).toISOString() : undefined;
    const query = { ...(queueId ? { queueId } : {}), ...(state ? { state } : {}), ...(openedBefore ? { openedBefore } : {}), page, pageSize: PAGE_SIZE };
    return ok(api.GET('/api/console/v1/jobs', { params: { query } }));
  }, [queueId, state, olderThan, page, ready]);
  const shown = jobs.data?.jobs ?? [];
  const pages = jobs.data ? Math.max(1, Math.ceil(jobs.data.total / PAGE_SIZE)) : 1;
  const changed = (message: string) => {
    setNotice(message);
    jobs.reload();
  };

  return (
    <>
      <PageHead title="Jobs" loaded={jobs} />
      <form className="filters" aria-label="Filter jobs" onSubmit={(e) => e.preventDefault()}>
        <label>
          Queue
          <select
            value={queueId}
            onChange={(e) => {
              setChosenQueue(e.target.value);
              setPage(1);
            }}
          >
            {mayListAll && <option value="">All queues</option>}
            {queues.data?.queues.map((q) => (
              <option key={q.id} value={q.id}>
                {q.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          State
          <select
            value={state}
            onChange={(e) => {
              setState(e.target.value as JobState | '');
              setPage(1);
            }}
          >
            <option value="">Any state</option>
            {STATES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Age
          <select
            value={olderThan}
            onChange={(e) => {
              setOlderThan(Number(e.target.value));
              setPage(1);
            }}
          >
            {AGES.map((a) => (
              <option key={a.seconds} value={a.seconds}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorNote error={queues.error ?? users.error} />
      <ErrorNote error={jobs.error} />
      <Notice text={notice} />
      {jobs.data && (
        <>
          <div className="table-wrap">
            <table className="jobs">
              <caption className="sr-only">Review jobs</caption>
              <TableHead columns={['Item', 'Queue', 'State', 'Opened', 'Holder or assignee', 'Reports']} hidden="Actions" />
              <tbody>
                {shown.map((job) => (
                  <JobRow key={job.jobId} job={job} users={users.data} onChanged={changed} />
                ))}
              </tbody>
            </table>
          </div>
          {shown.length === 0 && <p className="muted">No job matches these filters.</p>}
          <Pager
            label="Job pages"
            status={`Page ${page} of ${pages}${jobs.data.totalExact ? '' : '+'} · ${jobs.data.total}${jobs.data.totalExact ? '' : '+'} job${jobs.data.total === 1 ? '' : 's'}`}
            onPrevious={page > 1 ? () => setPage(page - 1) : null}
            onNext={page < pages ? () => setPage(page + 1) : null}
          />
        </>
      )}
    </>
  );
}
