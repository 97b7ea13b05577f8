import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError, ok, type Schemas } from '../api/client';
import { useSession } from '../app/session';
import { countMediaItem, tookBreak } from '../app/wellness';
import { useConsoleSettings } from '../app/settings';
import { DecisionPanel, type DecisionPanelHandle, type Decision } from '../components/DecisionPanel';
import { ErrorNote } from '../components/ErrorNote';
import { JobView, type MediaState, mediaUrlsOf } from '../components/JobView';
import { LockTimer } from '../components/LockTimer';
import { WellnessControls } from '../components/WellnessControls';
import { Shortcuts, useShortcuts } from '../components/Shortcuts';

type Claimed = Schemas['ClaimedJobResponseDto'];

/** Renew when less than this share of the lock is left and the moderator was active since. */
const RENEW_AT = 0.5;

/**
 * Gives the lock back when the moderator leaves the job (page closed, another page). `keepalive`
 * lets the request finish after the page is gone.
 */
function releaseOnLeave(claimed: Claimed) {
  void api
    .DELETE('/api/console/v1/jobs/{jobId}/lock', { params: { path: { jobId: claimed.job.jobId } }, body: { lockToken: claimed.lock.token }, keepalive: true })
    .catch(() => undefined);
}

/**
 * The moderator's day: claim the next job of a queue, decide, and the next job opens. The lock
 * is shown, renewed while the moderator is active, and released on skip or leaving.
 */
export function Review() {
  const { queueId = '' } = useParams();
  const navigate = useNavigate();
  const session = useSession();
  const settings = useConsoleSettings();
  const [claimed, setClaimed] = useState<Claimed | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [decisionError, setDecisionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [revealed, setRevealed] = useState<ReadonlySet<string>>(new Set());
  const [breakDue, setBreakDue] = useState(false);
  const [decided, setDecided] = useState(0);
  const panel = useRef<DecisionPanelHandle>(null);
  const active = useRef(false);
  const current = useRef<Claimed | null>(null);
  const lockTimeoutMs = useRef(60_000);
  lockTimeoutMs.current = (settings.queues.find((q) => q.id === queueId)?.lockTimeoutSeconds ?? 60) * 1000;

  const fail = useCallback(
    (failure: unknown) => {
      if (failure instanceof ApiError && failure.status === 401) session.expired();
      setError(failure instanceof Error ? failure.message : String(failure));
    },
    [session],
  );

  const claimNext = useCallback(async () => {
    setBusy(true);
    setError(null);
    setDecisionError(null);
    try {
      const next = await ok(api.POST('/api/console/v1/queues/{queueId}/claim', { params: { path: { queueId } } }));
      const job = next ?? null;
      current.current = job;
      setClaimed(job);
      setRevealed(new Set());
      if (job && settings.data && mediaUrlsOf(job.job.itemType?.fields, job.job.item.data).length > 0) {
        const limit = settings.data.wellness.breakAfterItems;
        if (limit > 0 && countMediaItem() >= limit) setBreakDue(true);
      }
    } catch (failure) {
      fail(failure);
      setClaimed(null);
    } finally {
      setBusy(false);
    }
  }, [queueId, settings.data, fail]);

  useEffect(() => {
    if (settings.data) void claimNext();
    // Claim once the settings are known; later claims follow decisions and skips.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [queueId, settings.data !== undefined]);

  // Leaving the page (another route, closing the tab) gives the lock back.
  useEffect(() => {
    const onHide = () => current.current && releaseOnLeave(current.current);
    window.addEventListener('pagehide', onHide);
    return () => {
      window.removeEventListener('pagehide', onHide);
      onHide();
    };
  }, []);

  // Heartbeat: activity marks the moderator present; the lock is renewed when it runs low.
  useEffect(() => {
    const mark = () => {
      active.current = true;
    };
    window.addEventListener('pointermove', mark);
    window.addEventListener('keydown', mark);
    const timer = setInterval(async () => {
      const job = current.current;
      if (!job || !active.current) return;
      const left = Date.parse(job.lock.expiresAt) - Date.now();
      if (left > lockTimeoutMs.current * RENEW_AT) return;
      active.current = false;
      try {
        const renewed = await ok(api.POST('/api/console/v1/jobs/{jobId}/lock', { params: { path: { jobId: job.job.jobId } }, body: { lockToken: job.lock.token } }));
        const next = { ...job, lock: { ...job.lock, expiresAt: renewed.expiresAt } };
        current.current = next;
        setClaimed(next);
      } catch (failure) {
        fail(failure);
      }
    }, 5_000);
    return () => {
      clearInterval(timer);
      window.removeEventListener('pointermove', mark);
      window.removeEventListener('keydown', mark);
    };
  }, [fail]);

  const decide = useCallback(
    async (decision: Omit<Decision, 'lockToken'>) => {
      const job = current.current;
      if (!job) return;
      setBusy(true);
      setDecisionError(null);
      try {
        await ok(api.POST('/api/console/v1/jobs/{jobId}/decision', { params: { path: { jobId: job.job.jobId } }, body: { ...decision, lockToken: job.lock.token } }));
        current.current = null;
        setDecided((n) => n + 1);
        await claimNext();
      } catch (failure) {
        if (failure instanceof ApiError && failure.status === 401) session.expired();
        setDecisionError(failure instanceof Error ? failure.message : String(failure));
        setBusy(false);
      }
    },
    [claimNext, session],
  );

  const skip = useCallback(async () => {
    const job = current.current;
    if (!job) return;
    try {
      await ok(api.POST('/api/console/v1/jobs/{jobId}/skip', { params: { path: { jobId: job.job.jobId } }, body: { lockToken: job.lock.token } }));
      current.current = null;
      await claimNext();
    } catch (failure) {
      fail(failure);
    }
  }, [claimNext, fail]);

  const leave = useCallback(() => navigate('/queues'), [navigate]);

  const urls = claimed ? mediaUrlsOf(claimed.job.itemType?.fields, claimed.job.item.data) : [];
  const media: MediaState | null = settings.wellness
    ? {
        wellness: settings.wellness,
        isRevealed: (url) => revealed.has(url),
        toggle: (url) => setRevealed((set) => (set.has(url) ? new Set([...set].filter((u) => u !== url)) : new Set([...set, url]))),
      }
    : null;
  const toggleAll = useCallback(() => setRevealed((set) => (set.size > 0 ? new Set() : new Set(urls))), [urls]);

  const shortcuts = useShortcuts(
    claimed
      ? [
          { key: 'v', label: 'Reveal or blur media', run: toggleAll },
          // An appeal job takes only the appeal's outcome (or a move): "take action" and "ignore" would do nothing there.
          ...(claimed.job.appeal
            ? [
                { key: 'a', label: 'Accept appeal', run: () => panel.current?.choose('ACCEPT_APPEAL') },
                { key: 'r', label: 'Reject appeal', run: () => panel.current?.choose('REJECT_APPEAL') },
              ]
            : [
                { key: 'a', label: 'Take action', run: () => panel.current?.choose('CUSTOM_ACTION') },
                { key: 'i', label: 'Ignore', run: () => panel.current?.choose('IGNORE') },
              ]),
          { key: 'm', label: 'Move to another queue', run: () => panel.current?.choose('TRANSFORM_JOB_AND_RECREATE_IN_QUEUE') },
          { key: 's', label: 'Skip this job', run: () => void skip() },
          { key: 'Ctrl+Enter', label: 'Submit the decision', run: () => panel.current?.submit() },
          { key: 'Escape', label: 'Leave the queue (releases the lock)', run: leave },
        ]
      : [{ key: 'Escape', label: 'Back to the queues', run: leave }],
  );

  if (settings.error) return <ErrorNote error={settings.error} />;
  return (
    <div className="review">
      <div className="review-bar">
        <h1>
          Reviewing <span className="muted">{queueId}</span>
        </h1>
        {claimed && <LockTimer expiresAt={claimed.lock.expiresAt} />}
        <span className="muted" aria-live="polite">
          {decided} decided this session
        </span>
        {settings.wellness && <WellnessControls {...settings.personal} />}
        <button type="button" onClick={() => void skip()} disabled={!claimed || busy}>
          Skip <kbd>s</kbd>
        </button>
        <Link to="/queues">Leave queue</Link>
      </div>
      <ErrorNote error={error} />
      {breakDue && (
        <div className="break" role="alert">
          <p>You have looked at {settings.data?.wellness.breakAfterItems} items with media. Consider taking a short break.</p>
          <button
            type="button"
            onClick={() => {
              tookBreak();
              setBreakDue(false);
            }}
          >
            I took a break
          </button>
        </div>
      )}
      {claimed === undefined || (busy && !claimed) ? (
        <p className="loading">Claiming the next job…</p>
      ) : claimed === null ? (
        <div className="empty card">
          <p role="status">No job is waiting in this queue.</p>
          <button type="button" onClick={() => void claimNext()}>
            Check again
          </button>{' '}
          <Link to="/queues">Back to the queues</Link>
        </div>
      ) : (
        media && (
          <div className="review-grid">
            <JobView key={claimed.job.jobId} job={claimed.job} media={media} />
            <aside aria-label="Decide">
              <DecisionPanel
                key={claimed.job.jobId}
                ref={panel}
                job={claimed.job}
                options={{
                  actions: settings.actions,
                  policies: settings.policies,
                  queues: settings.queues,
                  requireDecisionReason: settings.data?.requireDecisionReason ?? false,
                  requirePolicyForDecisions: settings.data?.requirePolicyForDecisions ?? false,
                  canReportChildSafety: session.can('VIEW_CHILD_SAFETY_DATA'),
                }}
                busy={busy}
                error={decisionError}
                onDecide={(d) => void decide(d)}
              />
              <Shortcuts list={shortcuts} />
            </aside>
          </div>
        )
      )}
      {!claimed && <Shortcuts list={shortcuts} />}
    </div>
  );
}
