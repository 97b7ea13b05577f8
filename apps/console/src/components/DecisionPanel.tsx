import { type FormEvent, forwardRef, useImperativeHandle, useMemo, useRef, useState } from 'react';
import type { Schemas } from '../api/client';
import { PolicyPicker } from './PolicyPicker';
import { ErrorNote } from './ErrorNote';

type Job = Schemas['ReviewJobResponseDto'];
type Action = Schemas['ActionDto'];
type Parameter = Schemas['ActionParameterDto'];
export type Decision = Schemas['DecideJobRequestDto'];
export type DecisionType = Decision['type'];

export interface DecisionOptions {
  readonly actions: readonly Action[];
  readonly policies: ReadonlyArray<{ id: string; name: string; parentId: string | null }>;
  readonly queues: ReadonlyArray<{ id: string; name: string }>;
  readonly requireDecisionReason: boolean;
  readonly requirePolicyForDecisions: boolean;
  readonly canReportChildSafety: boolean;
}

export interface DecisionPanelHandle {
  choose(type: DecisionType): void;
  submit(): void;
}

const LABELS: Record<DecisionType, string> = {
  CUSTOM_ACTION: 'Take action',
  IGNORE: 'Ignore',
  TRANSFORM_JOB_AND_RECREATE_IN_QUEUE: 'Move to another queue',
  SUBMIT_CHILD_SAFETY_REPORT: 'Child-safety report',
  ACCEPT_APPEAL: 'Accept appeal',
  REJECT_APPEAL: 'Reject appeal',
};

/** Turns a form field's text into the parameter's JSON type; undefined when left empty. */
function parameterValue(parameter: Parameter, raw: string | boolean | undefined): unknown {
  if (parameter.type === 'BOOLEAN') return raw === true;
  if (raw === undefined || raw === '') return undefined;
  if (parameter.type === 'NUMBER') return Number(raw);
  // The date picker gives local time without an offset; the platform gets an unambiguous instant.
  if (parameter.type === 'DATETIME' && typeof raw === 'string') return new Date(raw).toISOString();
  return raw;
}

/** The queue whose jobs never move elsewhere (its reports are child-safety data). */
const CHILD_SAFETY_QUEUE = 'child-safety';

/**
 * The decision: the types this job allows, the item type's actions with their parameters, the
 * policy tree, reason and note (required as the organization says). The server checks it all
 * again; its refusal is shown in words.
 */
export const DecisionPanel = forwardRef<
  DecisionPanelHandle,
  { job: Job; options: DecisionOptions; busy: boolean; error: string | null; onDecide(decision: Omit<Decision, 'lockToken'>): void }
>(function DecisionPanel({ job, options, busy, error, onDecide }, ref) {
  // A child-safety job stays in its queue (the server refuses the move): it is not offered there.
  const movable = job.queueId !== CHILD_SAFETY_QUEUE;
  // An appeal job is decided with its outcome only (the server refuses every other type).
  const types: DecisionType[] = job.appeal
    ? ['ACCEPT_APPEAL', 'REJECT_APPEAL']
    : [
        'CUSTOM_ACTION',
        'IGNORE',
        ...(movable ? (['TRANSFORM_JOB_AND_RECREATE_IN_QUEUE'] as const) : []),
        ...(options.canReportChildSafety ? (['SUBMIT_CHILD_SAFETY_REPORT'] as const) : []),
      ];
  const [type, setType] = useState<DecisionType>(types[0]!);
  const [actionIds, setActionIds] = useState<string[]>([]);
  const [policyIds, setPolicyIds] = useState<string[]>([]);
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const [targetQueueId, setTarget] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);

  // The built-in enqueue actions are the "move" and "child-safety report" decisions here, not actions to take.
  const actions = useMemo(
    () => options.actions.filter((a) => a.actionType === 'CUSTOM_ACTION' && (a.itemTypeIds.length === 0 || a.itemTypeIds.includes(job.item.typeId))),
    [options.actions, job.item.typeId],
  );
  const parameters = useMemo(() => {
    const seen = new Map<string, Parameter>();
    for (const a of actions.filter((x) => actionIds.includes(x.id))) for (const p of a.parameters) if (!seen.has(p.name)) seen.set(p.name, p);
    return [...seen.values()];
  }, [actions, actionIds]);
  // As the server checks it: the organization's policy requirement is for actions taken.
  const needsPolicy = options.requirePolicyForDecisions && type === 'CUSTOM_ACTION';

  useImperativeHandle(ref, () => ({
    choose: (next) => {
      if (types.includes(next)) setType(next);
      form.current?.querySelector<HTMLElement>(`[data-type="${next}"]`)?.focus();
    },
    submit: () => form.current?.requestSubmit(),
  }));

  function submit(event: FormEvent) {
    event.preventDefault();
    setProblem(null);
    if (type === 'CUSTOM_ACTION' && actionIds.length === 0) return setProblem('Choose at least one action.');
    if (type === 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' && !targetQueueId) return setProblem('Choose the queue to move the job to.');
    if (needsPolicy && policyIds.length === 0) return setProblem('Choose the policy this decision enforces (the organization requires one).');
    if (options.requireDecisionReason && !reason.trim()) return setProblem('Give a reason (the organization requires one for every decision).');
    const params: Record<string, unknown> = {};
    if (type === 'CUSTOM_ACTION') {
      for (const p of parameters) {
        const value = parameterValue(p, values[p.name]);
        if (value === undefined && p.required) return setProblem(`Fill in the parameter ${p.name}.`);
        if (typeof value === 'number' && Number.isNaN(value)) return setProblem(`${p.name} must be a number.`);
        if (value !== undefined) params[p.name] = value;
      }
    }
    onDecide({
      type,
      ...(type === 'CUSTOM_ACTION' ? { actionIds, parameters: params } : {}),
      ...(policyIds.length > 0 && type !== 'IGNORE' && type !== 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' ? { policyIds } : {}),
      ...(type === 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' ? { targetQueueId } : {}),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
      ...(note.trim() ? { note: note.trim() } : {}),
    });
  }

  return (
    <form ref={form} className="decision card" onSubmit={submit} aria-labelledby="decision-heading">
      <h3 id="decision-heading">Decision</h3>
      <fieldset>
        <legend>Decision type</legend>
        <div className="types" role="radiogroup">
          {types.map((t) => (
            <label key={t} className={type === t ? 'chosen' : undefined}>
              <input type="radio" name="decision-type" value={t} data-type={t} checked={type === t} onChange={() => setType(t)} /> {LABELS[t]}
            </label>
          ))}
        </div>
      </fieldset>

      {type === 'CUSTOM_ACTION' && (
        <fieldset>
          <legend>Actions</legend>
          {actions.length === 0 && <p className="muted">No action applies to {job.item.typeName}.</p>}
          {actions.map((a) => (
            <label key={a.id} className="action">
              <input
                type="checkbox"
                checked={actionIds.includes(a.id)}
                onChange={() => setActionIds((ids) => (ids.includes(a.id) ? ids.filter((i) => i !== a.id) : [...ids, a.id]))}
              />{' '}
              {a.name}
              {a.description && <span className="muted"> — {a.description}</span>}
            </label>
          ))}
          {parameters.map((p) => (
            <label key={p.name}>
              {p.name}
              {p.required ? ' (required)' : ''}
              {p.type === 'BOOLEAN' ? (
                <input type="checkbox" checked={values[p.name] === true} onChange={(e) => setValues((v) => ({ ...v, [p.name]: e.target.checked }))} />
              ) : (
                <input
                  type={p.type === 'NUMBER' ? 'number' : p.type === 'DATETIME' ? 'datetime-local' : p.type === 'URL' ? 'url' : 'text'}
                  value={typeof values[p.name] === 'string' ? (values[p.name] as string) : ''}
                  onChange={(e) => setValues((v) => ({ ...v, [p.name]: e.target.value }))}
                />
              )}
            </label>
          ))}
        </fieldset>
      )}

      {type === 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' && (
        <label>
          Move to queue
          <select value={targetQueueId} onChange={(e) => setTarget(e.target.value)}>
            <option value="">Choose a queue…</option>
            {options.queues
              .filter((q) => q.id !== job.queueId)
              .map((q) => (
                <option key={q.id} value={q.id}>
                  {q.name}
                </option>
              ))}
          </select>
        </label>
      )}

      {type !== 'IGNORE' && type !== 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' && (
        <PolicyPicker policies={options.policies} chosen={policyIds} onChange={setPolicyIds} required={needsPolicy} />
      )}

      <label>
        Reason{options.requireDecisionReason ? ' (required)' : ''}{' '}
        {/* The appeal decision callback carries the outcome only (docs/callbacks.md), not the reason. */}
        <span className="muted">{job.appeal ? '— recorded, not sent to the platform' : '— sent to the platform'}</span>
        <textarea rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <label>
        Note <span className="muted">— for the record</span>
        <textarea rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
      </label>
      <ErrorNote error={problem ?? error} />
      <button type="submit" className="primary" disabled={busy}>
        {LABELS[type]} <kbd>Ctrl+Enter</kbd>
      </button>
    </form>
  );
});
