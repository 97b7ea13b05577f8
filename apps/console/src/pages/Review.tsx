import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError, ok, type Schemas } from '../api/client';
import { useSession } from '../app/session';
import { countMediaItem, tookBreak } from '../app/wellness';
import { useConsoleSettings } from '../app/settings';
import { DecisionPanel, type DecisionPanelHandle, type Decision } from '../components/DecisionPanel';
import { ErrorNote } from '../components/ErrorNote';
import { jobMediaUrls, JobView, useRevealedMedia } from '../components/JobView';
import { LockTimer } from '../components/LockTimer';
import { WellnessControls } from '../components/WellnessControls';
import { Shortcuts, useShortcuts } from '../components/Shortcuts';

type Claimed = Schemas['ClaimedJobResponseDto'];

/** Renew once this share of the lock's time has passed, if the moderator was active since. */
const RENEW_AT = 0.5;
/** What counts as the moderator being there: pointer, touch, keys, scrolling. */
const ACTIVITY = ['pointermove', 'pointerdown', 'keydown', 'wheel', 'scroll', 'touchstart'] as const;

/**
 * Gives a lock back. `keepalive` lets the request finish when the page is going away; a lock
 * that cannot be given back expires by itself on the server.
 */
function release(claimed: Claimed): Promise<unknown> {
  return api
    .DELETE('/api/console/v1/jobs/{jobId}/lock', { params: { path: { jobId: claimed.job.jobId } }, body: { lockToken: claimed.lock.token }, keepalive: true })
    .catch(() => undefined);
}

/**
 * The moderator's day: claim the next job of a queue, decide, and the next job opens. The lock
 * is shown, renewed while the moderator is active, and released on skip, on leaving, on sign-out
 * and when the tab closes. One request about the job at a time: a held key or a double click
 * never sends a decision twice, and a late answer never lands on a page that was left.
 */
export function Review() {
  const { queueId = '' } = useParams();
  const navigate = useNavigate();
  const session = useSession();
  const settings = useConsoleSettings();
  const { media, toggleAll, hideAll } = useRevealedMedia(settings.wellness);
  const [claimed, setClaimed] = useState<Claimed | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [decisionError, setDecisionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [breakDue, setBreakDue] = useState(false);
  const [decided, setDecided] = useState(0);
  const panel = useRef<DecisionPanelHandle>(null);
  const active = useRef(false);
  /** The job on screen and its lock; null when none. */
  const current = useRef<Claimed | null>(null);
  /** When (this browser's clock) the lock was taken or last renewed: clocks of browser and server may differ. */
  const heldSince = useRef(0);
  /** A claim, decision or skip is under way. */
  const inFlight = useRef(false);
  const mounted = useRef(false);
  const lockTimeoutMs = (settings.queues.find((q) => q.id === queueId)?.lockTimeoutSeconds ?? 60) * 1000;

  const fail = useCallback(
    (failure: unknown) => {
      if (failure instanceof ApiError && failure.status === 401) session.expired();
      setError(failure instanceof Error ? failure.message : String(failure));
    },
    [session],
  );

  const hold = useCallback((job: Claimed | null) => {
    current.current = job;
    heldSince.current = Date.now();
    setClaimed(job);
  }, []);

  /** Gives back the job on screen, if any. */
  const letGo = useCallback(async () => {
    const job = current.current;
    current.current = null;
    if (job) await release(job);
  }, []);

  /** Claims the next job; the caller holds `inFlight`. */
  const claim = useCallback(async () => {
    setError(null);
    setDecisionError(null);
    try {
      const next = (await ok(api.POST('/api/console/v1/queues/{queueId}/claim', { params: { path: { queueId } } }))) ?? null;
      if (!mounted.current) {
        // The moderator left while the claim was under way: give it straight back.
        if (next) await release(next);
        return;
      }
      hold(next);
      hideAll();
      if (next && settings.data && jobMediaUrls(next.job).length > 0) {
        const limit = settings.data.wellness.breakAfterItems;
        if (limit > 0 && countMediaItem() >= limit) setBreakDue(true);
      }
    } catch (failure) {
      fail(failure);
      if (mounted.current) hold(null);
    }
  }, [queueId, settings.data, fail, hold, hideAll]);

  /** Runs one job operation at a time; others asked for meanwhile are dropped, not queued. */
  const exclusive = useCallback(async (operation: () => Promise<void>) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      await operation();
    } finally {
      inFlight.current = false;
      if (mounted.current) setBusy(false);
    }
  }, []);

  const claimNext = useCallback(() => exclusive(claim), [exclusive, claim]);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    if (settings.data) void claimNext();
    // Claim once the settings are known, and again for another queue (after giving this one's back).
    return () => void letGo();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs again only when these change (see the comment above)
  }, [queueId, settings.data !== undefined]);

  // Closing the tab or leaving the site gives the lock back; a page restored from the browser's
  // back-forward cache claims afresh.
  useEffect(() => {
    const onHide = () => void letGo();
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) void claimNext();
    };
    window.addEventListener('pagehide', onHide);
    window.addEventListener('pageshow', onShow);
    return () => {
      window.removeEventListener('pagehide', onHide);
      window.removeEventListener('pageshow', onShow);
    };
  }, [letGo, claimNext]);

  // Signing out ends the session the release needs: give the lock back first.
  useEffect(() => session.beforeSignOut(letGo), [session, letGo]);

  // Heartbeat: activity marks the moderator present; the lock is renewed when half its time is gone.
  useEffect(() => {
    const mark = () => {
      active.current = true;
    };
    for (const type of ACTIVITY) window.addEventListener(type, mark, { passive: true, capture: true });
    const tick = Math.max(250, Math.min(5_000, lockTimeoutMs / 4));
    const timer = setInterval(async () => {
      const job = current.current;
      if (!job || !active.current || inFlight.current) return;
      if (Date.now() - heldSince.current < lockTimeoutMs * RENEW_AT) return;
      active.current = false;
      try {
        const renewed = await ok(
          api.POST('/api/console/v1/jobs/{jobId}/lock', { params: { path: { jobId: job.job.jobId } }, body: { lockToken: job.lock.token } }),
        );
        // A decision or skip may have moved on meanwhile: only the job still on screen takes the renewal.
        if (current.current?.lock.token === job.lock.token) hold({ ...job, lock: { ...job.lock, expiresAt: renewed.expiresAt } });
      } catch (failure) {
        if (current.current?.lock.token === job.lock.token) fail(failure);
      }
    }, tick);
    return () => {
      clearInterval(timer);
      for (const type of ACTIVITY) window.removeEventListener(type, mark, { capture: true });
    };
  }, [fail, hold, lockTimeoutMs]);

  const decide = useCallback(
    (decision: Omit<Decision, 'lockToken'>) =>
      exclusive(async () => {
        const job = current.current;
        if (!job) return;
        setDecisionError(null);
        try {
          // The decision is made on the version the view showed (recorded with it, docs/review.md).
          await ok(
            api.POST('/api/console/v1/jobs/{jobId}/decision', {
              params: { path: { jobId: job.job.jobId } },
              body: { ...decision, lockToken: job.lock.token, itemVersion: job.job.item.version },
            }),
          );
        } catch (failure) {
          if (failure instanceof ApiError && failure.status === 401) session.expired();
          setDecisionError(failure instanceof Error ? failure.message : String(failure));
          return;
        }
        current.current = null;
        setDecided((n) => n + 1);
        await claim();
      }),
    [exclusive, claim, session],
  );

  const skip = useCallback(
    () =>
      exclusive(async () => {
        const job = current.current;
        if (!job) return;
        try {
          await ok(api.POST('/api/console/v1/jobs/{jobId}/skip', { params: { path: { jobId: job.job.jobId } }, body: { lockToken: job.lock.token } }));
        } catch (failure) {
          fail(failure);
          return;
        }
        current.current = null;
        await claim();
      }),
    [exclusive, claim, fail],
  );

  const leave = useCallback(() => navigate('/queues'), [navigate]);

  const urls = claimed ? jobMediaUrls(claimed.job) : [];

  const shortcuts = useShortcuts(
    claimed
      ? [
          // A text-only job has nothing to reveal: neither the key nor the blur controls are offered.
          ...(urls.length > 0 ? [{ key: 'v', label: 'Reveal or blur media', run: () => toggleAll(urls) }] : []),
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
          ...(claimed.job.appeal
            ? []
            : [{ key: 'm', label: 'Move to another queue', run: () => panel.current?.choose('TRANSFORM_JOB_AND_RECREATE_IN_QUEUE') }]),
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
        {settings.wellness && urls.length > 0 && <WellnessControls {...settings.personal} />}
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
