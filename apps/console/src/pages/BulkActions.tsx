import { type ChangeEvent, type FormEvent, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ok, type Schemas } from '../api/client';
import { when } from '../app/format';
import { useAction, useLoad } from '../app/use-load';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorNote } from '../components/ErrorNote';
import { PageHead } from '../components/PageHead';
import { PolicyPicker } from '../components/PolicyPicker';
import { TableHead } from '../components/TableHead';

type Preview = Schemas['BulkActionPreviewDto'];
type Operation = Schemas['BulkActionResponseDto'];
type Item = { id: string; typeId: string };

/** The server's bound (docs/bulk-actions.md, "Requests"); checked here too, to say so before sending. */
const MAX_ITEMS = 10_000;
/** How often a running operation's progress is read again. */
const POLL_MS = 1000;

/** One id a line; `typeId,id` (or a tab) names another type than the default. Blank lines are skipped. */
function parseItems(text: string, defaultTypeId: string): Item[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const cut = line.search(/[,\t]/);
      return cut < 0 ? { id: line, typeId: defaultTypeId } : { typeId: line.slice(0, cut).trim(), id: line.slice(cut + 1).trim() };
    });
}

function PreviewTable({ preview }: { preview: Preview }) {
  const row = (label: string, c: Omit<Preview, 'duplicates' | 'byType'>) => (
    <tr key={label}>
      <th scope="row">{label}</th>
      <td>{c.items}</td>
      <td>{c.existing}</td>
      <td>{c.missing}</td>
      <td>{c.newActions}</td>
      <td>{c.alreadyActioned}</td>
    </tr>
  );
  return (
    <div className="table-wrap">
      <table>
        <caption>Preview{preview.duplicates > 0 ? ` (${preview.duplicates} duplicate ids counted once)` : ''}</caption>
        <TableHead columns={['Item type', 'Ids', 'Existing', 'Missing', 'New actions', 'Already actioned']} />
        <tbody>
          {preview.byType.map((t) => row(t.typeId, t))}
          {preview.byType.length > 1 && row('All', preview)}
        </tbody>
      </table>
    </div>
  );
}

/** The form: ids pasted or uploaded, the action, policies and reason; a preview, then the confirmation. */
function NewBulkAction() {
  const navigate = useNavigate();
  const catalog = useLoad(async () => {
    const [policies, actions] = await Promise.all([ok(api.GET('/api/console/v1/policies')), ok(api.GET('/api/console/v1/actions'))]);
    return { policies: policies.policies.map((p) => ({ id: p.id, name: p.name, parentId: p.parentId ?? null })), actions: actions.actions };
  }, []);
  const [actionId, setActionId] = useState('');
  const [typeId, setTypeId] = useState('');
  const [ids, setIds] = useState('');
  const [policyIds, setPolicyIds] = useState<string[]>([]);
  const [reason, setReason] = useState('');
  const [preview, setPreview] = useState<Preview | null>(null);
  const previewing = useAction();
  const confirming = useAction();
  const actions = catalog.data?.actions ?? [];
  const action = actions.find((a) => a.id === actionId);
  const typeIds = useMemo(() => action?.itemTypeIds ?? [], [action]);
  useEffect(() => {
    if (!typeIds.includes(typeId)) setTypeId(typeIds[0] ?? '');
  }, [typeIds, typeId]);
  const items = useMemo(() => parseItems(ids, typeId), [ids, typeId]);
  const body = { actionId, policyIds, reason, items };
  // Anything changed makes the preview stale: it is asked again before a confirmation.
  useEffect(() => setPreview(null), [actionId, typeId, ids, policyIds, reason]);

  async function upload(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (file) setIds(await file.text());
  }
  async function askPreview(event: FormEvent) {
    event.preventDefault();
    if (items.length > MAX_ITEMS) return previewing.setError(`At most ${MAX_ITEMS} ids in one bulk action (${items.length} given).`);
    const counted = await previewing.run(() => ok(api.POST('/api/console/v1/bulk-actions/preview', { body })));
    if (counted) setPreview(counted);
  }
  async function confirm() {
    const started = await confirming.run(() => ok(api.POST('/api/console/v1/bulk-actions', { body })));
    if (started) void navigate(`/bulk-actions/${started.bulkActionId}`);
  }

  return (
    <>
      <PageHead title="Bulk actions" loaded={catalog} />
      <ErrorNote error={catalog.error} />
      <form className="card form-grid" onSubmit={askPreview} aria-labelledby="bulk-heading">
        <h2 id="bulk-heading">Act on many items</h2>
        <label>
          Action
          <select required value={actionId} onChange={(e) => setActionId(e.target.value)}>
            <option value="">Choose an action</option>
            {actions.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Item type of ids without one
          <select value={typeId} onChange={(e) => setTypeId(e.target.value)} disabled={typeIds.length === 0}>
            {typeIds.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Item ids
          <textarea required rows={8} value={ids} onChange={(e) => setIds(e.target.value)} aria-describedby="ids-hint" spellCheck={false} className="mono" />
        </label>
        <p id="ids-hint" className="muted field-hint">
          One id a line, at most {MAX_ITEMS.toLocaleString('en')}; write <code>typeId,id</code> for an item of another type. {items.length} ids.
        </p>
        <label>
          Or upload a file of ids
          <input type="file" accept=".txt,.csv,text/plain,text/csv" onChange={(e) => void upload(e)} />
        </label>
        <PolicyPicker policies={catalog.data?.policies ?? []} chosen={policyIds} onChange={setPolicyIds} required={false} />
        <label>
          Reason
          <textarea required rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
        <ErrorNote error={previewing.error} />
        <div className="form-buttons">
          <button type="submit" className="primary" disabled={previewing.busy || items.length === 0}>
            Preview
          </button>
        </div>
      </form>
      {preview && (
        <section className="card" aria-labelledby="preview-heading">
          <h2 id="preview-heading">
            {preview.newActions} new actions on {preview.existing} existing items
          </h2>
          <PreviewTable preview={preview} />
          <p className="muted">Missing items are not stored in this organization and are never acted on; already actioned ones are not acted on again.</p>
          <ErrorNote error={confirming.error} />
          <ConfirmButton
            label={`Execute on ${preview.existing} items`}
            question={`Execute ${action?.name ?? actionId} on ${preview.existing} items? Callbacks go to your platform.`}
            confirmLabel="Execute"
            busy={confirming.busy || preview.existing === 0}
            onConfirm={() => void confirm()}
          />
        </section>
      )}
    </>
  );
}

const STATUS: Record<Operation['status'], string> = { RUNNING: 'Running', CANCELLED: 'Cancelled', COMPLETED: 'Completed' };

/** One operation's progress, read again every second while it runs; cancel while it does. */
function BulkActionProgress({ bulkActionId }: { bulkActionId: string }) {
  const operation = useLoad(() => ok(api.GET('/api/console/v1/bulk-actions/{bulkActionId}', { params: { path: { bulkActionId } } })), [bulkActionId]);
  const cancelling = useAction();
  const op = operation.data;
  const running = op?.status === 'RUNNING';
  useEffect(() => {
    if (!running || operation.loading) return;
    const timer = setTimeout(operation.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [running, operation.loading, operation.reload, op?.processed]);
  async function cancel() {
    const done = await cancelling.run(() => ok(api.POST('/api/console/v1/bulk-actions/{bulkActionId}/cancel', { params: { path: { bulkActionId } } })));
    if (done) operation.reload();
  }
  return (
    <>
      <PageHead title="Bulk action" loaded={operation} />
      <ErrorNote error={operation.error} />
      {op && (
        <section className="card" aria-labelledby="op-heading">
          <h2 id="op-heading">
            {STATUS[op.status]}: {op.actionId} on {op.items} items
          </h2>
          <label>
            Progress
            <progress className="bulk-progress-bar" max={op.items} value={op.processed} aria-valuetext={`${op.processed} of ${op.items}`} />
          </label>
          <p role="status" className="bulk-progress">
            {op.processed} of {op.items} processed
          </p>
          <dl className="figures">
            <dt>Executed</dt>
            <dd>{op.executed}</dd>
            <dt>Already actioned</dt>
            <dd>{op.alreadyActioned}</dd>
            <dt>Missing</dt>
            <dd>{op.missing}</dd>
            <dt>Failed</dt>
            <dd>{op.failed}</dd>
            <dt>Policies</dt>
            <dd>{op.policyIds.join(', ') || '—'}</dd>
            <dt>Reason</dt>
            <dd className="text">{op.reason}</dd>
            <dt>Requested</dt>
            <dd>
              {when(op.requestedAt)} by {op.requestedBy}
            </dd>
            {op.finishedAt && (
              <>
                <dt>{op.status === 'CANCELLED' ? 'Cancelled' : 'Completed'}</dt>
                <dd>{when(op.finishedAt)}</dd>
              </>
            )}
          </dl>
          <ErrorNote error={cancelling.error} />
          {running && (
            <ConfirmButton
              label="Cancel"
              question="Stop this bulk action? What was executed stays."
              confirmLabel="Stop it"
              busy={cancelling.busy}
              onConfirm={() => void cancel()}
            />
          )}
        </section>
      )}
      <p>
        <Link to="/bulk-actions">New bulk action</Link>
      </p>
    </>
  );
}

/** Bulk actions (docs/console.md, "Bulk actions"): one action over up to 10,000 ids, in the background. */
export function BulkActions() {
  const { bulkActionId } = useParams();
  return bulkActionId ? <BulkActionProgress key={bulkActionId} bulkActionId={bulkActionId} /> : <NewBulkAction />;
}
