import { type FormEvent, useId, useState } from 'react';
import { api, ok, type Schemas } from '../api/client';
import { useAction, useLoad } from '../app/use-load';
import { ErrorNote } from './ErrorNote';

type User = Schemas['UserDto'];
export type JobState = Schemas['ReviewJobSummaryDto']['state'];

/** Who may be given a job: active users who can decide (the server checks the queue again). */
export const assignable = (users: readonly User[]) => users.filter((u) => u.state === 'active' && u.permissions.includes('DECIDE_MRT'));

function AssignForm({ jobId, users, onDone, onCancel }: { jobId: string; users: readonly User[] | null; onDone(message: string): void; onCancel(): void }) {
  const action = useAction();
  const [userId, setUserId] = useState('');
  const fieldId = useId();
  const candidates = users ? assignable(users) : null;
  async function submit(event: FormEvent) {
    event.preventDefault();
    const chosen = userId.trim();
    const done = await action.run(() =>
      ok(api.POST('/api/console/v1/jobs/{jobId}/assign', { params: { path: { jobId } }, body: { userId: chosen } })).then(() => true),
    );
    if (done) onDone(`Job ${jobId} is reserved for ${candidates?.find((u) => u.id === chosen)?.email ?? chosen}.`);
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label={`Assign job ${jobId}`}>
      <label htmlFor={fieldId}>Assign to</label>
      {candidates ? (
        <select id={fieldId} required value={userId} onChange={(e) => setUserId(e.target.value)}>
          <option value="">Choose a moderator…</option>
          {candidates.map((u) => (
            <option key={u.id} value={u.id}>
              {u.email ?? u.id}
            </option>
          ))}
        </select>
      ) : (
        // Listing users needs MANAGE_USERS, which a moderator manager lacks: the id is typed instead.
        <input id={fieldId} required placeholder="usr_…" value={userId} onChange={(e) => setUserId(e.target.value)} />
      )}
      <button type="submit" className="primary" disabled={action.busy}>
        Assign
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}

/**
 * A manager's moves on one job: take it back from its holder or assignee ("Release"), or reserve
 * it for a moderator ("Assign to…", which also ends any lock held: reassignment by release).
 */
export function JobActions({
  jobId,
  state,
  users,
  onChanged,
}: {
  jobId: string;
  state: JobState;
  users: readonly User[] | null;
  onChanged(message: string): void;
}) {
  const release = useAction();
  const [assigning, setAssigning] = useState(false);
  if (state === 'CLOSED') return null;
  async function doRelease() {
    const done = await release.run(() => ok(api.POST('/api/console/v1/jobs/{jobId}/release', { params: { path: { jobId } } })).then(() => true));
    if (done) onChanged(`Job ${jobId} was released: anyone may claim it now.`);
  }
  return (
    <div className="job-actions">
      {(state === 'LOCKED' || state === 'ASSIGNED') && (
        <button type="button" onClick={() => void doRelease()} disabled={release.busy} aria-label={`Release job ${jobId}`}>
          Release
        </button>
      )}{' '}
      {assigning ? (
        <AssignForm
          jobId={jobId}
          users={users}
          onCancel={() => setAssigning(false)}
          onDone={(message) => {
            setAssigning(false);
            onChanged(message);
          }}
        />
      ) : (
        <button type="button" onClick={() => setAssigning(true)} aria-label={`Assign to… (job ${jobId})`}>
          Assign to…
        </button>
      )}
      <ErrorNote error={release.error} />
    </div>
  );
}

/** The organization's users when this viewer may list them (MANAGE_USERS); null otherwise. */
export function useUsersIfAllowed(allowed: boolean) {
  return useLoad(() => (allowed ? ok(api.GET('/api/console/v1/users')).then((body) => body.users) : Promise.resolve(null)), [allowed]);
}

/** A user id as people know it: the email when the users are known. */
export const nameOf = (userId: string, users: readonly User[] | null | undefined) => users?.find((u) => u.id === userId)?.email ?? userId;
