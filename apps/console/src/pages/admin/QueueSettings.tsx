import { type FormEvent, useState } from 'react';
import { api, ApiError, ok, type Schemas } from '../../api/client';
import { useSession } from '../../app/session';
import { useLoad } from '../../app/use-load';
import { ErrorNote } from '../../components/ErrorNote';
import { fileManagedExplanation, ManagedBadge } from '../../components/ManagedBy';
import { Notice } from '../../components/PageHead';
import { TableHead } from '../../components/TableHead';

type Queue = Schemas['ReviewQueueSummaryDto'];
type Definition = Schemas['QueueDefinitionRequestDto'];

interface Draft {
  readonly id: string;
  readonly name: string;
  readonly order: 'FIFO' | 'PRIORITY';
  readonly lockTimeoutSeconds: string;
  readonly autoCloseAfterDays: string;
  readonly isDefault: boolean;
  readonly isAppealsDefault: boolean;
}

const EMPTY: Draft = { id: '', name: '', order: 'FIFO', lockTimeoutSeconds: '600', autoCloseAfterDays: '', isDefault: false, isAppealsDefault: false };

const draftOf = (q: Queue): Draft => ({
  id: q.id,
  name: q.name,
  order: q.order,
  lockTimeoutSeconds: String(q.lockTimeoutSeconds),
  autoCloseAfterDays: q.autoCloseAfterDays === null ? '' : String(q.autoCloseAfterDays),
  isDefault: q.isDefault,
  isAppealsDefault: q.isAppealsDefault,
});

/** The form's text as the API's definition; numbers are sent as typed so the server's checks speak. */
const definitionOf = (d: Draft): Definition => ({
  name: d.name,
  order: d.order,
  lockTimeoutSeconds: Number(d.lockTimeoutSeconds),
  autoCloseAfterDays: d.autoCloseAfterDays.trim() === '' ? null : Number(d.autoCloseAfterDays),
  isDefault: d.isDefault,
  isAppealsDefault: d.isAppealsDefault,
});

interface Failure {
  readonly message: string;
  readonly pointer: string | undefined;
}

/** The server's message under the field its pointer names (`/lockTimeoutSeconds`). */
function FieldError({ failure, field }: { failure: Failure | null; field: string }) {
  if (!failure || failure.pointer !== `/${field}`) return null;
  return (
    <span className="error field-error" id={`queue-${field}-error`}>
      {failure.message}
    </span>
  );
}

function QueueForm({ editing, initial, onSaved, onCancel }: { editing: string | null; initial: Draft; onSaved(message: string): void; onCancel(): void }) {
  const [draft, setDraft] = useState<Draft>(initial);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const invalid = (field: string) => (failure?.pointer === `/${field}` ? { 'aria-invalid': true as const, 'aria-describedby': `queue-${field}-error` } : {});

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const saved = editing
        ? await ok(api.PUT('/api/console/v1/queues/{queueId}', { params: { path: { queueId: editing } }, body: definitionOf(draft) }))
        : await ok(api.POST('/api/console/v1/queues', { body: { ...definitionOf(draft), ...(draft.id.trim() ? { id: draft.id.trim() } : {}) } }));
      onSaved(editing ? `Queue ${saved.name} saved.` : `Queue ${saved.name} (${saved.id}) created.`);
    } catch (error) {
      setFailure({ message: error instanceof Error ? error.message : String(error), pointer: error instanceof ApiError ? error.pointer : undefined });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card form-grid" onSubmit={submit} aria-labelledby="queue-form-heading">
      <h2 id="queue-form-heading">{editing ? `Edit queue ${editing}` : 'New queue'}</h2>
      <label>
        Name
        <input required value={draft.name} onChange={(e) => set({ name: e.target.value })} {...invalid('name')} />
        <FieldError failure={failure} field="name" />
      </label>
      {!editing && (
        <label>
          Queue id (optional: derived from the name)
          <input value={draft.id} onChange={(e) => set({ id: e.target.value })} placeholder="hate-speech" {...invalid('id')} />
          <FieldError failure={failure} field="id" />
        </label>
      )}
      <label>
        Order
        <select value={draft.order} onChange={(e) => set({ order: e.target.value as Draft['order'] })} {...invalid('order')}>
          <option value="FIFO">Oldest first (FIFO)</option>
          <option value="PRIORITY">Priority: more reports and severe policies first</option>
        </select>
        <FieldError failure={failure} field="order" />
      </label>
      <label>
        Lock timeout (seconds)
        <input
          type="number"
          inputMode="numeric"
          required
          value={draft.lockTimeoutSeconds}
          onChange={(e) => set({ lockTimeoutSeconds: e.target.value })}
          {...invalid('lockTimeoutSeconds')}
        />
        <FieldError failure={failure} field="lockTimeoutSeconds" />
      </label>
      <label>
        Close jobs waiting longer than (days; empty: never)
        <input
          type="number"
          inputMode="numeric"
          value={draft.autoCloseAfterDays}
          onChange={(e) => set({ autoCloseAfterDays: e.target.value })}
          {...invalid('autoCloseAfterDays')}
        />
        <FieldError failure={failure} field="autoCloseAfterDays" />
      </label>
      <label>
        <input type="checkbox" checked={draft.isDefault} onChange={(e) => set({ isDefault: e.target.checked })} /> Default queue (jobs no routing rule places)
        <FieldError failure={failure} field="isDefault" />
      </label>
      <label>
        <input type="checkbox" checked={draft.isAppealsDefault} onChange={(e) => set({ isAppealsDefault: e.target.checked })} /> Default queue for appeals
        <FieldError failure={failure} field="isAppealsDefault" />
      </label>
      <ErrorNote error={failure?.message} />
      <div className="form-buttons">
        <button type="submit" className="primary" disabled={busy}>
          {editing ? 'Save queue' : 'Create queue'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The organization's review queues: how each orders and holds its jobs; create and edit them. */
export function QueueSettings() {
  const session = useSession();
  const queues = useLoad(() => ok(api.GET('/api/console/v1/queues')), []);
  // null: no form; '': a new queue; otherwise the id of the queue being edited.
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const editedQueue = queues.data?.queues.find((q) => q.id === editing);
  const anyFileManaged = queues.data?.queues.some((q) => q.managedBy === 'file') ?? false;
  return (
    <>
      <div className="page-head">
        <h1>Queue settings</h1>
        {session.can('EDIT_MRT_QUEUES') && editing === null && (
          <button type="button" className="primary" onClick={() => setEditing('')}>
            New queue
          </button>
        )}
      </div>
      <ErrorNote error={queues.error} />
      <Notice text={notice} />
      {anyFileManaged && (
        <p className="muted" id="file-managed-queues">
          Queues marked File are defined by the organization's configuration file: change them there and run <code>warden apply</code>, or hand the queues to
          the console with <code>management: {'{ queues: console }'}</code> in the file. Queues created here are listed by <code>warden apply --dry-run</code>{' '}
          as drift.
        </p>
      )}
      {editing !== null && (
        <QueueForm
          key={editing}
          editing={editing || null}
          initial={editedQueue ? draftOf(editedQueue) : EMPTY}
          onCancel={() => setEditing(null)}
          onSaved={(message) => {
            setNotice(message);
            setEditing(null);
            queues.reload();
          }}
        />
      )}
      {queues.data && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Queues and their settings</caption>
            <TableHead columns={['Queue', 'Order', 'Lock timeout', 'Auto-close', 'Default for']} hidden="Edit" />
            <tbody>
              {queues.data.queues.map((q) => (
                <tr key={q.id}>
                  <th scope="row">
                    {q.name} <span className="muted">{q.id}</span> <ManagedBadge managedBy={q.managedBy} file={q.file} />
                  </th>
                  <td>{q.order === 'PRIORITY' ? 'Priority' : 'Oldest first'}</td>
                  <td>{q.lockTimeoutSeconds} s</td>
                  <td>{q.autoCloseAfterDays === null ? 'Never' : `After ${q.autoCloseAfterDays} days`}</td>
                  <td>{[q.isDefault && 'new jobs', q.isAppealsDefault && 'appeals'].filter(Boolean).join(', ') || '—'}</td>
                  <td>
                    <button
                      type="button"
                      onClick={() => setEditing(q.id)}
                      aria-label={`Edit queue ${q.name}`}
                      disabled={q.managedBy !== 'console'}
                      title={
                        q.managedBy === 'file'
                          ? fileManagedExplanation(`Queue ${q.id} is`, q.file, 'queues')
                          : q.managedBy === 'builtin'
                            ? 'A built-in queue: it cannot be changed.'
                            : undefined
                      }
                    >
                      Edit
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
