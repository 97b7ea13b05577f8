import { type FormEvent, type ReactNode, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, ok, type Schemas } from '../api/client';
import { when } from '../app/format';
import { useSession } from '../app/session';
import { useLoad } from '../app/use-load';
import { DEFAULT_WELLNESS, useWellness, type Wellness } from '../app/wellness';
import { ErrorNote } from '../components/ErrorNote';
import { ItemFields, type MediaState, useRevealedMedia } from '../components/JobView';
import { PageHead, TypedTitle } from '../components/PageHead';
import { TableHead } from '../components/TableHead';
import { WellnessControls } from '../components/WellnessControls';

type ItemPage = Schemas['InvestigateItemResponseDto'];
type UserPage = Schemas['InvestigateUserResponseDto'];
type Kind = 'item' | 'user' | 'report' | 'job' | 'delivery';
type Ref = { typeId: string; id: string };

const KINDS: ReadonlyArray<{ kind: Kind; label: string; typed: boolean }> = [
  { kind: 'item', label: 'Item', typed: true },
  { kind: 'user', label: 'User', typed: true },
  { kind: 'report', label: 'Report', typed: false },
  { kind: 'job', label: 'Review job', typed: false },
  { kind: 'delivery', label: 'Callback delivery', typed: false },
];

const itemPath = (ref: Ref) => `/investigate/items/${encodeURIComponent(ref.typeId)}/${encodeURIComponent(ref.id)}`;
const userPath = (ref: Ref) => `/investigate/users/${encodeURIComponent(ref.typeId)}/${encodeURIComponent(ref.id)}`;

/** `user:<id>` is a console user: shown as such; an API key, the CLI or a module as they are. */
function Actor({ actor }: { actor: string }) {
  if (actor.startsWith('user:')) return <span className="actor">moderator {actor.slice(5)}</span>;
  return <span className="actor muted">{actor}</span>;
}

function ItemLink({ item, user }: { item: Ref; user?: boolean }) {
  return (
    <Link to={user ? userPath(item) : itemPath(item)}>
      {item.typeId} <strong>{item.id}</strong>
    </Link>
  );
}

/**
 * Investigate (docs/console.md, "Investigate"): look up an item, a user, a report, a review job or
 * a callback delivery by id, and land on the item's or the user's page.
 */
export function Investigate() {
  return (
    <>
      <h1>Investigate</h1>
      <LookupForm />
      <p className="muted">
        Every page opened here is recorded in the organization's access audit (who looked at whom). Media stays blurred as the review screen shows it until you
        reveal it.
      </p>
    </>
  );
}

function LookupForm() {
  const navigate = useNavigate();
  const [kind, setKind] = useState<Kind>('item');
  const [typeId, setTypeId] = useState('');
  const [id, setId] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const typed = KINDS.find((k) => k.kind === kind)!.typed;

  async function lookUp(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const query = { kind, id: id.trim(), ...(typed ? { typeId: typeId.trim() } : {}) };
      const found = await ok(api.GET('/api/console/v1/investigate/lookup', { params: { query } }));
      navigate(found.kind === 'user' ? userPath(found) : itemPath(found));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card filters" aria-label="Look up by id" onSubmit={(e) => void lookUp(e)}>
      <label>
        Look up
        <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
      </label>
      {typed && (
        <label>
          Type
          <input required value={typeId} onChange={(e) => setTypeId(e.target.value)} placeholder="post" />
        </label>
      )}
      <label>
        Id
        <input required value={id} onChange={(e) => setId(e.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Search
      </button>
      <ErrorNote error={error} />
    </form>
  );
}

/** Back to the newest entries of a paged section, or on to older ones (the `before` cursor in the address). */
function NewerOlder({
  noun,
  before,
  next,
  setParams,
}: {
  noun: string;
  before: string | null;
  next: number | null;
  setParams: (params: Record<string, string>) => void;
}) {
  if (!before && next === null) return null;
  return (
    <p>
      {before && (
        <button type="button" className="link" onClick={() => setParams({})}>
          Newest {noun}
        </button>
      )}{' '}
      {next !== null && (
        <button type="button" className="link" onClick={() => setParams({ before: String(next) })}>
          Older {noun}
        </button>
      )}
    </p>
  );
}

function Section({ title, count, children }: { title: string; count?: number; children: ReactNode }) {
  const id = `investigate-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <section aria-labelledby={id} className="card">
      <h2 id={id}>
        {title}
        {count !== undefined && <span className="count"> ({count})</span>}
      </h2>
      {children}
    </section>
  );
}

/** The page's media settings: the organization's wellness defaults with this user's own override. */
function useInvestigateMedia(organization: Wellness | undefined) {
  const session = useSession();
  const personal = useWellness(session.user?.id ?? '', organization ?? DEFAULT_WELLNESS);
  const { media } = useRevealedMedia(organization ? personal.wellness : undefined);
  return { media, personal };
}

/** An item's data: its fields (media blurred), or why there is none. */
function Data({
  page,
  data,
  media,
}: {
  page: { personalData: boolean; itemType: ItemPage['itemType'] };
  data: Record<string, unknown> | null;
  media: MediaState;
}) {
  if (data === null) {
    return page.personalData ? (
      <p className="muted erased">Erased (GDPR deletion): this data is no longer kept.</p>
    ) : (
      <p className="muted">Personal data: not shown to your role.</p>
    );
  }
  return <ItemFields fields={page.itemType?.fields as Schemas['FieldDto'][] | undefined} data={data} media={media} />;
}

function Timeline({ timeline }: { timeline: ItemPage['timeline'] }) {
  return (
    <Section title="What happened" count={timeline.entries.length}>
      {timeline.earlier && <p className="muted">Older events are in the item's audit history.</p>}
      <ol className="timeline" aria-label="Every step, oldest first">
        {timeline.entries.map((e) => (
          <li key={e.position} data-type={e.type}>
            <span className="muted">{when(e.occurredAt)}</span> · {e.summary} · <Actor actor={e.actor} />
          </li>
        ))}
      </ol>
    </Section>
  );
}

function Actions({ actions, showItem }: { actions: ItemPage['actions']; showItem: boolean }) {
  if (actions.length === 0) return <p className="muted">No action published.</p>;
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Actions published, newest first</caption>
        <TableHead columns={['Published', 'Action', ...(showItem ? ['Item'] : []), 'By', 'Policies', 'Callback']} />
        <tbody>
          {actions.map((a, i) => (
            // A rule that acts again on the same content publishes again under the same delivery id.
            <tr key={`${a.deliveryId}-${a.publishedAt}-${i}`}>
              <th scope="row">{when(a.publishedAt)}</th>
              <td>
                <strong>{a.actionId}</strong> <span className="muted">({a.trigger.replaceAll('-', ' ')})</span>
                {a.ruleIds.length > 0 && <span className="muted"> rule {a.ruleIds.join(', ')}</span>}
              </td>
              {showItem && (
                <td>
                  <ItemLink item={a.item} />
                </td>
              )}
              <td>
                <Actor actor={a.actor} />
              </td>
              <td>{a.policyIds.join(', ') || '—'}</td>
              <td>
                {a.delivery ? (
                  <span className={`tag${a.delivery.state === 'DELIVERED' ? '' : ' warn'}`}>
                    {a.delivery.state.toLowerCase().replace('_', ' ')}
                    {a.delivery.attempts > 1 ? `, ${a.delivery.attempts} attempts` : ''}
                  </span>
                ) : (
                  <span className="muted">not recorded yet</span>
                )}{' '}
                <span className="mono muted">{a.deliveryId}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Reports({ reports, personalData }: { reports: ItemPage['reports']; personalData: boolean }) {
  if (reports.length === 0) return <p className="muted">None.</p>;
  return (
    <ul className="reports">
      {reports.map((r) => (
        <li key={r.reportId}>
          {when(r.reportedAt)} · <span className="mono">{r.reportId}</span> on <ItemLink item={r.reportedItem} />
          {r.reporter && (
            <>
              {' '}
              by <ItemLink item={r.reporter} user />
            </>
          )}
          {r.policyId && <> · policy {r.policyId}</>} · reason:{' '}
          {r.reason ?? (
            <span className="muted">
              {!personalData ? 'not shown to your role' : r.opened ? 'none, or erased' : 'not opened: the newer reports filled the page'}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

function Appeals({ appeals }: { appeals: ItemPage['appeals'] }) {
  if (appeals.length === 0) return <p className="muted">None.</p>;
  return (
    <ul>
      {appeals.map((a) => (
        <li key={a.appealId}>
          {when(a.appealedAt)} · appeal <span className="mono">{a.appealId}</span>
          {a.appellant && (
            <>
              {' '}
              by <ItemLink item={a.appellant} user />
            </>
          )}
          {a.reason && <> · “{a.reason}”</>} ·{' '}
          {a.decision ? (
            <>
              {a.decision.toLowerCase()} by moderator {a.decidedBy} ({when(a.decidedAt)})
            </>
          ) : (
            <span className="muted">not decided yet</span>
          )}
        </li>
      ))}
    </ul>
  );
}

function Strikes({ strikes, score }: { strikes: UserPage['strikes']; score: number }) {
  return (
    <>
      <p className="standing">
        Score <strong data-testid="score">{score}</strong> <span className="muted">(1 worst – 5 best)</span> · Strikes now{' '}
        <strong data-testid="strike-count">{strikes.count}</strong>
        {strikes.windowDays !== null && <span className="muted"> (within {strikes.windowDays} days)</span>}
      </p>
      {strikes.entries.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption>Strikes over time, newest first</caption>
            <TableHead columns={['Applied', 'Strikes', 'Count after', 'Action', 'Item', 'Still counts']} />
            <tbody>
              {strikes.entries.map((s) => (
                <tr key={`${s.actionId}-${s.appliedAt}-${s.item.id}`}>
                  <th scope="row">{when(s.appliedAt)}</th>
                  <td>{s.strikes}</td>
                  <td>{s.countAfter ?? '—'}</td>
                  <td>{s.actionId}</td>
                  <td>
                    <ItemLink item={s.item} />
                  </td>
                  <td>{s.counting ? 'yes' : 'no'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** An item's page: everything Warden knows of it, each section its newest entries. */
export function InvestigateItem() {
  const { typeId = '', id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const before = params.get('before');
  const loaded = useLoad(
    () =>
      ok(
        api.GET('/api/console/v1/investigate/items/{typeId}/{id}', {
          params: { path: { typeId, id }, query: before ? { before: Number(before) } : {} },
        }),
      ),
    [typeId, id, before],
  );
  const page = loaded.data;
  const { media, personal } = useInvestigateMedia(page?.wellness as Wellness | undefined);
  return (
    <>
      <PageHead title={<TypedTitle noun="Item" typeId={typeId} id={id} />} loaded={loaded} />
      <LookupForm />
      <ErrorNote error={loaded.error} />
      {page && media && (
        <div className="investigate">
          {page.itemType?.fields.some((f) => ['IMAGE', 'VIDEO'].includes(f.type)) && <WellnessControls {...personal} />}
          {page.creator && (
            <p>
              Created by <ItemLink item={page.creator} user />
            </p>
          )}
          <Timeline timeline={page.timeline} />
          <Section title="Versions" count={page.versions.entries.length}>
            {page.versions.entries.map((v) => (
              <article key={v.version} className="version">
                <h3>
                  Version {v.version}
                  {v.typeVersion !== null && <span className="tag">typeVersion {v.typeVersion}</span>}
                  {v.typeSchemaVariant === 'partial' && <span className="tag">partial</span>}{' '}
                  <span className="muted">
                    {when(v.submittedAt)} · through {v.source} · <Actor actor={v.actor} />
                  </span>
                </h3>
                <Data page={page} data={v.data} media={media} />
              </article>
            ))}
            <NewerOlder noun="versions" before={before} next={page.versions.next} setParams={setParams} />
          </Section>
          {page.thread.length > 0 && (
            <Section title="Thread" count={page.thread.length}>
              <ol className="thread">
                {page.thread.map((t) => (
                  <li key={`${t.typeId}-${t.id}`} className={t.reported ? 'reported' : undefined}>
                    <ItemLink item={t} /> {t.reported && <span className="tag warn">reported</span>}
                    <Data page={page} data={t.data} media={media} />
                  </li>
                ))}
              </ol>
            </Section>
          )}
          <Section title="Rule evaluations" count={page.evaluations.length}>
            {page.evaluations.length === 0 && <p className="muted">Not evaluated.</p>}
            {page.evaluations.map((e) => (
              <details key={`${e.version}-${e.environment}-${e.evaluatedAt}`} open={e === page.evaluations[0]}>
                <summary>
                  Version {e.version} · {e.environment} · {when(e.evaluatedAt)} · passed:{' '}
                  {e.rules
                    .filter((r) => r.outcome === 'passed')
                    .map((r) => r.name)
                    .join(', ') || 'none'}
                  {e.actions.length > 0 && <> · actions {e.actions.map((a) => a.id).join(', ')}</>}
                </summary>
                <ul className="rules">
                  {e.rules.map((r) => (
                    <li key={r.id}>
                      <strong>{r.name}</strong> <span className={`tag${r.outcome === 'passed' ? ' warn' : ''}`}>{r.outcome}</span>
                      {r.capped && <span className="tag">capped (maxDailyActions)</span>}
                      <ul className="conditions">
                        {r.conditions.map((c) => (
                          <li key={c.path}>
                            <span className="mono">{c.path || 'all conditions'}</span>: {c.outcome}
                            {c.value !== undefined && <> (value {JSON.stringify(c.value)})</>}
                            {c.error && <span className="muted"> — {c.error}</span>}
                            {c.detail && <code className="json"> {JSON.stringify(c.detail)}</code>}
                          </li>
                        ))}
                      </ul>
                    </li>
                  ))}
                </ul>
                {e.hashMatches.length > 0 && (
                  <p>
                    Hash matches:{' '}
                    {e.hashMatches.map((h) => `${h.bankId} (rule ${h.ruleId}${h.distance !== null ? `, distance ${h.distance}` : ''})`).join('; ')}
                  </p>
                )}
              </details>
            ))}
          </Section>
          <Section title="Actions" count={page.actions.length}>
            <Actions actions={page.actions} showItem={false} />
          </Section>
          <Section title="Reports" count={page.reports.length}>
            <Reports reports={page.reports} personalData={page.personalData} />
          </Section>
          <Section title="Review jobs and decisions" count={page.jobs.length}>
            {page.jobs.length === 0 && <p className="muted">None.</p>}
            <ul className="jobs">
              {page.jobs.map((j) => (
                <li key={j.jobId}>
                  Job <span className="mono">{j.jobId}</span> in {j.queueId ?? '—'} · opened {when(j.openedAt)}
                  <ul>
                    {j.decisions.length === 0 && <li className="muted">Not decided yet</li>}
                    {j.decisions.map((d) => (
                      <li key={d.decisionId}>
                        {when(d.decidedAt)} · <strong>{d.type.replaceAll('_', ' ').toLowerCase()}</strong>
                        {d.actionIds.length > 0 && <> ({d.actionIds.join(', ')})</>} ·{' '}
                        {d.moderator ? <span className="actor">moderator {d.moderator}</span> : <span className="muted">by Warden ({d.closeReason})</span>}
                        {d.policyIds.length > 0 && <> · policy {d.policyIds.join(', ')}</>} · reason: {d.reason ?? <span className="muted">none</span>}
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          </Section>
          <Section title="Appeals" count={page.appeals.length}>
            <Appeals appeals={page.appeals} />
          </Section>
          {page.creatorStanding && (
            <Section title="Creator">
              <p>
                <ItemLink item={page.creatorStanding.user} user />
              </p>
              <Strikes strikes={page.creatorStanding.strikes} score={page.creatorStanding.score} />
              {page.creatorStanding.recentItems.length > 0 && (
                <p>
                  Recent items:{' '}
                  {page.creatorStanding.recentItems.map((i, n) => (
                    <span key={`${i.typeId}-${i.id}`}>
                      {n > 0 && ', '}
                      <ItemLink item={i} /> <span className="muted">({when(i.submittedAt)})</span>
                    </span>
                  ))}
                </p>
              )}
            </Section>
          )}
        </div>
      )}
    </>
  );
}

/** A user's page: their items, what was done to them, their strikes and score, what they filed and appealed. */
export function InvestigateUser() {
  const { typeId = '', id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const before = params.get('before');
  const loaded = useLoad(
    () =>
      ok(
        api.GET('/api/console/v1/investigate/users/{typeId}/{id}', {
          params: { path: { typeId, id }, query: before ? { before: Number(before) } : {} },
        }),
      ),
    [typeId, id, before],
  );
  const page = loaded.data;
  const { media } = useInvestigateMedia(page?.wellness as Wellness | undefined);
  return (
    <>
      <PageHead title={<TypedTitle noun="User" typeId={typeId} id={id} />} loaded={loaded} />
      <LookupForm />
      <ErrorNote error={loaded.error} />
      {page && media && (
        <div className="investigate">
          {page.erased && (
            <p className="notice erased" role="status">
              This user's personal data was erased (GDPR deletion): what they wrote shows as erased.
            </p>
          )}
          <Section title="Standing">
            <Strikes strikes={page.strikes} score={page.score} />
          </Section>
          <Section title="Profile">
            {page.profile ? <Data page={page} data={page.profile.data} media={media} /> : <p className="muted">No user item submitted.</p>}
          </Section>
          <Section title="Items" count={page.items.entries.length}>
            {page.items.entries.length === 0 && <p className="muted">None.</p>}
            <ul className="items">
              {page.items.entries.map((i) => (
                <li key={`${i.typeId}-${i.id}`}>
                  <ItemLink item={i} />{' '}
                  <span className="muted">
                    version {i.version}, {when(i.submittedAt)}
                  </span>
                </li>
              ))}
            </ul>
            <NewerOlder noun="items" before={before} next={page.items.next} setParams={setParams} />
          </Section>
          <Section title="Actions against them" count={page.actions.length}>
            <Actions actions={page.actions} showItem />
          </Section>
          <Section title="Reports they filed" count={page.reportsFiled.length}>
            <Reports reports={page.reportsFiled} personalData={page.personalData} />
          </Section>
          <Section title="Appeals" count={page.appeals.length}>
            <Appeals appeals={page.appeals} />
          </Section>
          <Timeline timeline={page.timeline} />
        </div>
      )}
    </>
  );
}
