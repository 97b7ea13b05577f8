import { type ReactNode, useCallback, useState } from 'react';
import { api, ApiError, ok, type Schemas } from '../api/client';
import type { Wellness } from '../app/wellness';
import { shownUrl, when } from '../app/format';
import { ErrorNote } from './ErrorNote';
import { Media, type MediaKind } from './Media';
import { type ItemStatement, StatementTag, useItemStatements } from './StatementState';
import { TableHead } from './TableHead';

type Job = Schemas['ReviewJobResponseDto'];
type FullItem = Schemas['LoadFullItemResponseDto'];
type FullItemOutcome = Schemas['FullItemOutcomeDto'];
type PublishedAction = Schemas['JobActionDto'];
type Field = Schemas['FieldDto'];
type Data = Record<string, unknown> | null;

const MEDIA: ReadonlySet<string> = new Set(['IMAGE', 'VIDEO', 'AUDIO']);

export interface MediaState {
  readonly wellness: Wellness;
  isRevealed(url: string): boolean;
  toggle(url: string): void;
}

/**
 * Which media of the job on screen the moderator revealed (everything starts hidden as the
 * wellness settings say); null until those settings are known.
 */
export function useRevealedMedia(wellness: Wellness | undefined) {
  const [revealed, setRevealed] = useState<ReadonlySet<string>>(new Set());
  const media: MediaState | null = wellness
    ? {
        wellness,
        isRevealed: (url) => revealed.has(url),
        toggle: (url) => setRevealed((set) => (set.has(url) ? new Set([...set].filter((u) => u !== url)) : new Set([...set, url]))),
      }
    : null;
  /** `v`: reveal every one of `urls`, or hide them all again if any is shown. */
  const toggleAll = useCallback((urls: readonly string[]) => setRevealed((set) => (set.size > 0 ? new Set() : new Set(urls))), []);
  /** A new job: everything hidden again. */
  const hideAll = useCallback(() => setRevealed(new Set()), []);
  return { media, toggleAll, hideAll };
}

/** The media URLs of an item, by its type's fields, in field order (used for "reveal all"). */
function mediaUrlsOf(fields: readonly Field[] | undefined, data: Data): string[] {
  if (!fields || !data) return [];
  return fields.filter((f) => MEDIA.has(f.type)).flatMap((f) => asList(data[f.name]).filter((v): v is string => typeof v === 'string'));
}

/** The fields an item of the job is shown with: the job's item type's, for items of that type only. */
const fieldsFor = (job: Job) => (typeId: string) => (job.itemType && job.itemType.id === typeId ? job.itemType.fields : undefined);

/**
 * Every media URL the job view shows (the item's, then its thread's and additional items'): what
 * "reveal all" reveals, and whether the blur and greyscale controls mean anything for this job.
 */
export function jobMediaUrls(job: Job): string[] {
  const fieldsOf = fieldsFor(job);
  return [job.item, ...job.thread, ...job.additionalItems].flatMap((item) => mediaUrlsOf(fieldsOf(item.typeId), item.data));
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]);

function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  if (typeof value === 'string') {
    if (/^https?:\/\//i.test(value)) {
      return (
        <a href={value} target="_blank" rel="noreferrer noopener">
          {shownUrl(value)}
        </a>
      );
    }
    return <span className="text">{value}</span>;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return <span>{String(value)}</span>;
  // A RELATED_ITEM value (the author, a parent post) reads as the item it names.
  if (typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' && typeof (value as { typeId?: unknown }).typeId === 'string') {
    const ref = value as { id: string; typeId: string };
    return (
      <span>
        {ref.typeId} <strong>{ref.id}</strong>
      </span>
    );
  }
  return <code className="json">{JSON.stringify(value)}</code>;
}

/** An item's fields as its type declares them (with roles); fields the type lacks follow as they came. */
export function ItemFields({ fields, data, media }: { fields: readonly Field[] | undefined; data: Data; media: MediaState }) {
  if (data === null) return <p className="muted">This item's data was erased (GDPR deletion).</p>;
  const declared = fields ?? [];
  const extra = Object.keys(data).filter((name) => !declared.some((f) => f.name === name));
  return (
    <dl className="fields">
      {declared
        .filter((f) => data[f.name] !== undefined)
        .map((f) => (
          <div key={f.name} className="field">
            <dt>
              {f.name}
              {f.roles.length > 0 && <span className="roles"> ({f.roles.join(', ').toLowerCase()})</span>}
            </dt>
            <dd>
              {MEDIA.has(f.type) ? (
                asList(data[f.name]).map((url, i) =>
                  typeof url === 'string' ? (
                    <Media
                      key={`${url}-${i}`}
                      kind={f.type as MediaKind}
                      url={url}
                      wellness={media.wellness}
                      revealed={media.isRevealed(url)}
                      onToggle={() => media.toggle(url)}
                    />
                  ) : (
                    <Value key={i} value={url} />
                  ),
                )
              ) : f.array ? (
                asList(data[f.name]).map((v, i) => (
                  <div key={i}>
                    <Value value={v} />
                  </div>
                ))
              ) : (
                <Value value={data[f.name]} />
              )}
            </dd>
          </div>
        ))}
      {extra.map((name) => (
        <div key={name} className="field">
          <dt>{name}</dt>
          <dd>
            <Value value={data[name]} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function Section({ title, count, children }: { title: string; count?: number; children: ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <section aria-labelledby={id} className="card">
      <h3 id={id}>
        {title}
        {count !== undefined && <span className="count"> ({count})</span>}
      </h3>
      {children}
    </section>
  );
}

/** What Warden published: the action, what sent it, and how its callback went. */
function PublishedActions({
  actions,
  showItem,
  label,
  statements,
}: {
  actions: readonly PublishedAction[];
  showItem: boolean;
  label: string;
  /** The item's statements of reasons by delivery id (the item's own actions only). */
  statements?: ReadonlyMap<string, ItemStatement>;
}) {
  return (
    <ul className="actions" aria-label={label}>
      {actions.map((a) => (
        <li key={`${a.deliveryId}-${a.item.typeId}-${a.item.id}`}>
          {when(a.requestedAt)} · action <strong>{a.actionName ?? a.actionId}</strong>
          {showItem && (
            <>
              {' '}
              on {a.item.typeId} {a.item.id}
            </>
          )}{' '}
          · {a.trigger.replaceAll('-', ' ')}
          {a.rules.length > 0 && <> ({a.rules.map((r) => r.name).join(', ')})</>}
          {a.policies.length > 0 && <> · policy {a.policies.map((p) => p.name).join(', ')}</>} · callback{' '}
          {a.delivery ? (
            <span className={`tag${a.delivery.status === 'dead' || a.delivery.status === 'failed' ? ' warn' : ''}`}>
              {a.delivery.status}
              {a.delivery.attempts > 1 ? `, ${a.delivery.attempts} attempts` : ''}
            </span>
          ) : (
            <span className="muted">not recorded yet</span>
          )}
          {statements?.has(a.deliveryId) && (
            <>
              {' '}
              · statement of reasons <StatementTag statement={statements.get(a.deliveryId)!} />
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

function ContextItems({ items, media, fieldsOf }: { items: Job['thread']; media: MediaState; fieldsOf(typeId: string): readonly Field[] | undefined }) {
  return (
    <ol className="context">
      {items.map((item) => (
        <li key={`${item.typeId}/${item.id}`} className={item.reported ? 'reported' : undefined}>
          <div className="context-head">
            <strong>{item.typeName ?? item.typeId}</strong> {item.id} <span className="muted">{when(item.createdAt)}</span>
            {item.reported && <span className="tag">Reported</span>}
          </div>
          <ItemFields fields={fieldsOf(item.typeId)} data={item.data} media={media} />
        </li>
      ))}
    </ol>
  );
}

/**
 * "Load full item" (docs/partial-items.md): asks the organization's platform for the whole item and
 * the related items Warden never received, and shows what came back. Shown here rather than in
 * place of the item: a moderator holding the job decides on the version the claim showed.
 */
function FullItemLoader({ job, media }: { job: Job; media: MediaState }) {
  const [loaded, setLoaded] = useState<FullItem | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = async () => {
    setBusy(true);
    setError(null);
    try {
      setLoaded(await ok(api.POST('/api/console/v1/jobs/{jobId}/full-item', { params: { path: { jobId: job.jobId } } })));
    } catch (e) {
      setError(e instanceof ApiError ? e.message : 'The full item could not be loaded');
    } finally {
      setBusy(false);
    }
  };
  const outcome = (o: FullItemOutcome, fields: readonly Field[] | undefined) =>
    o.status === 'failed' ? (
      <p className="error" role="alert">
        Not loaded: {o.reason}
      </p>
    ) : (
      <>
        <p className="muted">
          Version {o.version}
          {o.typeVersion !== null && <> · type version {o.typeVersion}</>} · {o.status === 'cached' ? 'fetched moments ago' : 'fetched now'}
        </p>
        <ItemFields fields={fields} data={o.data} media={media} />
      </>
    );
  return (
    <div className="full-item">
      <button type="button" onClick={() => void load()} disabled={busy}>
        {busy ? 'Loading the full item…' : 'Load full item'}
      </button>
      <ErrorNote error={error} />
      {loaded && (
        <div aria-label="Full item" role="region">
          <h4>Full item</h4>
          {outcome(loaded.item, job.itemType?.fields)}
          {loaded.related.map((r) => (
            <div key={`${r.typeId}-${r.id}`}>
              <h4>
                {r.field}: {r.typeId} {r.id}
              </h4>
              {outcome(r, undefined)}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

/** Everything the job API gives about a job, laid out for a decision (docs/review.md, "The job view"). */
export function JobView({ job, media }: { job: Job; media: MediaState }) {
  const fieldsOf = fieldsFor(job);
  const statements = useItemStatements(job.item.typeId, job.item.id);
  const byOrder = [...job.thread].sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''));
  return (
    <article className="job" aria-label={`Review job ${job.jobId}`}>
      <header className="job-head">
        <h2>
          {job.item.typeName} <span className="muted">{job.item.id}</span>
        </h2>
        <p>
          Queue <strong>{job.queueId}</strong> · sent by {job.appeal ? 'appeal' : job.sources.join(', ').toLowerCase().replaceAll('_', ' ')} · opened{' '}
          {when(job.openedAt)} · {job.reportCount} report{job.reportCount === 1 ? '' : 's'}
          {job.item.latestVersion !== null && job.item.latestVersion !== job.item.version && (
            <span className="tag warn" title="The version your claim showed: your decision is made on it. A newer version arrived since.">
              version {job.item.version} of {job.item.latestVersion}
            </span>
          )}
          {job.item.typeVersion !== null && <span className="tag">type version {job.item.typeVersion}</span>}
          {job.item.typeSchemaVariant === 'partial' && (
            <span className="tag" title="Sent with some fields left out (typeSchemaVariant partial)">
              partial
            </span>
          )}
          {job.item.versionSource === 'partial-fetch' && <span className="tag">fetched from your platform</span>}
        </p>
      </header>

      {job.appeal && (
        <Section title="Appeal">
          <p>
            Appealed {when(job.appeal.appealedAt)} by {job.appeal.appellant ? `${job.appeal.appellant.typeId}/${job.appeal.appellant.id}` : 'unknown'}
          </p>
          <p className="quote">{job.appeal.reason ?? <span className="muted">No reason given (or erased)</span>}</p>
          <p>Policies said to be violated: {job.appeal.violatingPolicies.map((p) => p.name ?? p.id).join(', ') || '—'}</p>
          <ul>
            {job.appeal.actionsTaken.map((a) => (
              <li key={a.actionId}>
                {a.actionName ?? a.actionId}: {a.callbacks.length} callback{a.callbacks.length === 1 ? '' : 's'}
                {a.callbacks.map((c) => (
                  <span key={c.deliveryId} className="muted">
                    {' '}
                    · {c.trigger.toLowerCase()} {when(c.requestedAt)} ({c.delivery.status.toLowerCase()})
                  </span>
                ))}
              </li>
            ))}
          </ul>
          {job.appeal.strikes && <p>Appellant strikes: {job.appeal.strikes.count}</p>}
        </Section>
      )}

      <Section title="Item">
        <ItemFields fields={job.itemType?.fields} data={job.item.data} media={media} />
        <FullItemLoader job={job} media={media} />
      </Section>

      {byOrder.length > 0 && (
        <Section title="Thread" count={byOrder.length}>
          <ContextItems items={byOrder} media={media} fieldsOf={fieldsOf} />
        </Section>
      )}
      {!job.contextComplete && <p className="muted">Thread and context items of older reports are not shown: the view holds those of the newest reports.</p>}
      {job.additionalItems.length > 0 && (
        <Section title="Additional items" count={job.additionalItems.length}>
          <ContextItems items={job.additionalItems} media={media} fieldsOf={fieldsOf} />
        </Section>
      )}

      <Section title="Reports" count={job.reportCount}>
        {job.reports.length === 0 ? (
          <p className="muted">
            No user reports: {job.appeal ? 'the job is an appeal' : `the job came from ${job.source.toLowerCase().replaceAll('_', ' ')}`}.
          </p>
        ) : (
          <>
            {job.reports.length < job.reportCount && (
              <p className="muted">
                The newest {job.reports.length.toLocaleString('en')} of {job.reportCount.toLocaleString('en')} reports.
              </p>
            )}
            <ol className="reports">
              {job.reports.map((r) => (
                <li key={r.reportId}>
                  {when(r.reportedAt)} · reporter {r.reporter.kind.toLowerCase()} {r.reporter.id ?? ''}
                  {r.policyId && <> · policy {job.policies.find((p) => p.id === r.policyId)?.name ?? r.policyId}</>}
                  {r.csam && <span className="tag danger">CSAM</span>}
                  <div className="quote">{r.reason ?? <span className="muted">No reason</span>}</div>
                </li>
              ))}
            </ol>
          </>
        )}
      </Section>

      <Section title="Creator">
        {job.creator ? (
          <>
            <p>
              {job.creator.item.typeId}/{job.creator.item.id} · score <strong>{job.creator.userScore ?? '—'}</strong> · strikes{' '}
              <strong>{job.creator.strikeCount ?? '—'}</strong>
            </p>
            {job.creator.user && <ItemFields fields={undefined} data={job.creator.user.data} media={media} />}
          </>
        ) : (
          <p className="muted">The item names no creator.</p>
        )}
      </Section>

      {(job.actions.item.length > 0 || job.actions.creator.length > 0) && (
        <Section title="What Warden did">
          {job.actions.item.length > 0 ? (
            <PublishedActions actions={job.actions.item} showItem={false} label="Actions on this item" statements={statements} />
          ) : (
            <p className="muted">No action published on this item.</p>
          )}
          {job.actions.creator.length > 0 && (
            <>
              <h4>The creator's recent actions</h4>
              <PublishedActions actions={job.actions.creator} showItem label="The creator's recent actions" />
            </>
          )}
        </Section>
      )}

      {(job.evaluations.length > 0 || job.hashMatches.length > 0) && (
        <Section title="Rules that fired">
          {job.evaluations.map((e) => (
            <div key={`${e.actionId ?? ''}-${e.version}-${e.environment}-${e.evaluatedAt}`}>
              {e.rules.map((rule) => (
                <details key={rule.id} open>
                  <summary>
                    Rule <strong>{rule.name}</strong>: {rule.outcome.toLowerCase()} ({e.environment.toLowerCase()}, version {e.version}, {when(e.evaluatedAt)})
                    {e.actionId ? ' · sent it here' : e.actions.length > 0 ? ` · published ${e.actions.join(', ')}` : ''}
                  </summary>
                  <ul className="conditions">
                    {rule.conditions.map((c) => (
                      <li key={c.path}>
                        <code>{c.path}</code> {c.outcome}
                        {c.value !== undefined && <> · value {JSON.stringify(c.value)}</>}
                        {c.error && <span className="error"> · {c.error}</span>}
                      </li>
                    ))}
                  </ul>
                </details>
              ))}
            </div>
          ))}
          {job.hashMatches.length > 0 && (
            <table>
              <caption>Image hash matches</caption>
              <TableHead columns={['Bank', 'Distance', 'Rule']} />
              <tbody>
                {job.hashMatches.map((m, i) => (
                  <tr key={i}>
                    <td>{m.bankName ?? m.bankId}</td>
                    <td>{m.distance}</td>
                    <td>{m.ruleId}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Section>
      )}

      {(job.history.item.length > 0 || job.history.creator.length > 0) && (
        <Section title="Earlier jobs">
          <ul>
            {[...job.history.item.map((h) => ({ ...h, about: 'this item' })), ...job.history.creator.map((h) => ({ ...h, about: 'the creator' }))].map((h) => (
              <li key={`${h.about}-${h.jobId}`}>
                {when(h.openedAt)} · {h.about} · queue {h.queueId} · {h.state.toLowerCase()}
                {h.decision && (
                  <>
                    {' '}
                    · {h.decision.type.toLowerCase().replaceAll('_', ' ')} by {h.decision.actorId ?? 'the system'}
                  </>
                )}
              </li>
            ))}
          </ul>
        </Section>
      )}

      {job.relatedItems.length > 0 && (
        <Section title="Related items" count={job.relatedItems.length}>
          {job.relatedItems.map((r) => (
            <div key={`${r.field}-${r.typeId}-${r.id}`}>
              <p>
                {r.field}: {r.typeName ?? r.typeId} {r.id}
                {r.typeVersion !== null && <span className="muted"> · type version {r.typeVersion}</span>}
              </p>
              <ItemFields fields={undefined} data={r.data} media={media} />
            </div>
          ))}
        </Section>
      )}
    </article>
  );
}
