import { performance } from 'node:perf_hooks';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Counter } from 'prom-client';
import type { EventStore, Handled } from '#warden/eventstore';
import { type Clock, FairSlots, foldStream, DomainError, withUserInfoAsBasic } from '#warden/kernel';
import { CLOCK, GUARDED_HTTP_CLIENT, type GuardedHttpClient, Metrics, OutboundError, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore, EVENT_STORE, KEYRING, type Keyring, openUrl } from '#warden/storage';
import { sendableBody } from '../domain/action-callback-body.js';
import { type AttemptOutcome, type CallbackDeliveryCommand, callbackDeliveryDecider, type CallbackDeliveryState } from '../domain/callback-delivery.decider.js';
import type { CallbackDeliveryEvent, CallbackDestination } from '../domain/callback-delivery.events.js';
import { DELIVERY_ID_HEADER, formatSignatureHeader, SIGNATURE_HEADER, signedPayload } from '../domain/callback-signature.js';
import { deliveryStream } from '../domain/callbacks.streams.js';
import { parseRetryAfterMs } from '../domain/retry-backoff.js';
import { SigningKeys } from '../signing/signing-keys.js';
import { DeliveryTimers } from './delivery-timers.js';
import { DestinationLimiter, type Turn, TurnQueue } from './destination-limiter.js';

export interface DeliveryKey {
  readonly orgId: string;
  readonly deliveryId: string;
}

/** Tuning of delivery; the defaults are the documented behaviour. */
export interface CallbackDeliveryOptions {
  /** Whole attempt, connect to last response byte. */
  readonly attemptTimeoutMs: number;
  /** Attempts in flight to one receiver (scheme, host and port) for each organization (laneOf). */
  readonly perDestinationConcurrency: number;
  /** A longer response body makes the attempt fail (the body itself is never used). */
  readonly responseLimitBytes: number;
  /** Deliveries that may wait for their turn with their body in memory (WAITING_BODIES by default). */
  readonly waitingBodies?: number;
}

export const CALLBACK_DELIVERY_OPTIONS = Symbol('CallbackDeliveryOptions');
export const DEFAULT_DELIVERY_OPTIONS: CallbackDeliveryOptions = {
  attemptTimeoutMs: 10_000,
  perDestinationConcurrency: 16,
  responseLimitBytes: 1024 * 1024,
};

/**
 * What this process knows of a scheduled delivery without reading its stream. The state (with the
 * body, opened) is kept only for the attempt about to run: the first, right after the requester
 * appended it. A retry, minutes or hours later, reads the stream again, so that a subject erased
 * meanwhile is not sent from memory (its sealed fields then read as null: docs/gdpr.md), and a
 * receiver that fails for long keeps no bodies here.
 */
interface Known {
  /** Revision of the last event of the delivery's stream this process has seen. */
  revision: number;
  /** The state up to `revision`, for an attempt due now; absent: read the stream when due. */
  state?: CallbackDeliveryState;
}

/**
 * Deliveries run at once in the process, over every organization and receiver (FairSlots: each
 * organization at most its share, never more than half). Each holds its body and, at a receiver
 * that never answers, its attempt's 10 s; without a bound, one organization with 200 actions
 * calling back 200 receivers put 200,000 deliveries on the thread's event loop at once, and
 * another organization's callbacks waited up to 34 s, the process holding 3 GB (a helper's hunt,
 * docs/benchmarks.md, "A second hunt for stalls"). Per receiver and organization (laneOf), DestinationLimiter still takes turns by user.
 */
export const DELIVERIES_AT_ONCE = 256;

/** Deliveries that may wait for their turn with their body in memory; the others read it again then. */
const WAITING_BODIES = 1_024;

/**
 * Deliveries waiting in a receiver's queue (DestinationLimiter) with their turn taken; the next ones
 * are parked as tickets (their key, revision and turn) and join the queue one by one as it moves,
 * organizations and users taking turns as in it. A place in the queue is a chain of promises and
 * suspended frames, about 3 KB more than a ticket (heap snapshots of 40,000 callbacks to receivers
 * that never answer: docs/benchmarks.md, "Waiting callbacks in memory").
 */
export const QUEUED_PER_RECEIVER = 64;

/** Finished deliveries remembered, so that late echoes of their own events are not re-checked. */
const FINISHED_MEMORY = 100_000;
/** Due within this: attempt now rather than set a timer. */
const DUE_SLACK_MS = 5;
/** How long an attempt's outcome may wait to be recorded together with others. */
const RECORD_BATCH_MS = 2;

/**
 * Sends callbacks (worker role). The log is the truth: each delivery's stream says what is due
 * when; timers only wake the process at that time, and every attempt is decided against the
 * stream's state with its expected revision, so a stale timer, a redelivery by the CLI or a second
 * worker can at worst cause one more (signed, same delivery id) request, never a lost one.
 */
@Injectable()
export class CallbackDispatcher implements OnApplicationShutdown {
  private readonly logger = new Logger('callbacks');
  private readonly timers: DeliveryTimers<DeliveryKey>;
  private readonly limiter: DestinationLimiter;
  private readonly slots = new FairSlots(DELIVERIES_AT_ONCE);
  /** Deliveries waiting for their turn with their body in memory (at most WAITING_BODIES). */
  private waitingBodies = 0;
  private readonly known = new Map<string, Known>();
  private readonly finished = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Per organization's lane at a receiver, deliveries waiting past QUEUED_PER_RECEIVER; and their stream ids. */
  private readonly parked = new Map<string, TurnQueue<Ticket>>();
  private readonly parkedIds = new Set<string>();
  private scheduleOwnRecords = true;
  private readonly attempts: Counter<'outcome'>;
  private readonly recordQueue: Array<() => void> = [];
  private recordTimer: NodeJS.Timeout | undefined;
  private started = false;
  private stopping = false;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly aggregates: AggregateStore,
    @Inject(KEYRING) private readonly keyring: Keyring,
    @Inject(GUARDED_HTTP_CLIENT) private readonly http: GuardedHttpClient,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(CALLBACK_DELIVERY_OPTIONS) private readonly options: CallbackDeliveryOptions,
    private readonly signingKeys: SigningKeys,
    metrics: Metrics,
  ) {
    this.limiter = new DestinationLimiter(options.perDestinationConcurrency);
    this.timers = new DeliveryTimers(
      (key) => this.run(key),
      () => clock.now().getTime(),
    );
    this.attempts = new Counter({
      name: 'warden_callback_attempts_total',
      help: 'Callback delivery attempts by outcome (delivered, failed, dead-lettered)',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
  }

  /**
   * Only the process that runs the delivery reactor (a worker holding its lease, or every member
   * of its consumer group) delivers; elsewhere scheduling is a no-op.
   */
  start(): void {
    if (this.stopping) return;
    this.known.clear();
    this.timers.resume();
    this.started = true;
  }

  /**
   * Stops delivering here (the delivery reactor moves to another worker): no more timers, and the
   * attempts in flight finish and are recorded before this resolves (5 s at most), so the next
   * holder, which reloads what is due from the log, does not send them again. That holds for a
   * handover (SIGTERM releases the lease only then); a lease lost because renewals failed may
   * expire under an attempt slower than the keeper's margin, which is then sent again (at least
   * once, same delivery id).
   */
  async pause(): Promise<void> {
    this.started = false;
    this.timers.stop();
    this.dropParked();
    await this.settleInFlight();
    // After the attempts: their recording remembers states without timers (stopped), which a
    // later start here must not mistake for scheduled deliveries.
    this.known.clear();
  }

  /**
   * With consumer groups (KurrentDB) every worker delivers, each what the group hands it: a
   * delivery recorded here is then scheduled by the member its CallbackDeliveryRequested goes to,
   * not also here, or two workers would send it.
   */
  followGroup(): void {
    this.scheduleOwnRecords = false;
  }

  /** `orgId`'s callbacks waiting for one of its slots at the receiver at `url`'s origin (DestinationLimiter). */
  waitingAt(url: string, orgId: string): number {
    const lane = laneOf(orgId, url);
    return this.limiter.waiting(lane) + (this.parked.get(lane)?.size ?? 0);
  }

  /** Of those, the ones parked as tickets, past QUEUED_PER_RECEIVER. */
  parkedAt(url: string, orgId: string): number {
    return this.parked.get(laneOf(orgId, url))?.size ?? 0;
  }

  get delivering(): boolean {
    return this.started && !this.stopping;
  }

  /** A delivery is due at `at`, as an event at `revision` of its stream (if known) says. */
  schedule(key: DeliveryKey, at: string, revision?: number): void {
    if (!this.delivering) return;
    const id = deliveryStream(key.orgId, key.deliveryId);
    if (revision !== undefined) {
      const finishedAt = this.finished.get(id);
      if (finishedAt !== undefined && finishedAt >= revision) return;
      const known = this.known.get(id);
      if (known && known.revision >= revision) return;
      if (known) this.known.delete(id);
    }
    this.timers.schedule(id, key, Date.parse(at));
  }

  /**
   * A delivery recorded earlier (a re-run after a crash) must not be left behind: scheduled here,
   * unless a consumer group hands its events to whichever member should send it.
   */
  scheduleRecorded(key: DeliveryKey, at: string): void {
    if (this.scheduleOwnRecords) this.schedule(key, at);
  }

  /** The requester just appended the delivery's stream up to `revision`: no need to read it back. */
  accept(key: DeliveryKey, state: CallbackDeliveryState, revision: number): void {
    if (!this.delivering || !this.scheduleOwnRecords) return;
    const id = deliveryStream(key.orgId, key.deliveryId);
    if (state.status !== 'pending' && state.status !== 'failed') {
      this.finish(id, revision);
      return;
    }
    this.known.set(id, { state, revision });
    this.timers.schedule(id, key, Date.parse(state.nextAttemptAt!));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.timers.stop();
    this.dropParked();
    await this.settleInFlight();
  }

  /** No longer delivering here: what is parked stays due in the log, for whoever delivers next. */
  private dropParked(): void {
    for (const queue of this.parked.values()) {
      for (let ticket = queue.shift(); ticket !== undefined; ticket = queue.shift()) if (ticket.counted) this.waitingBodies--;
    }
    this.parked.clear();
    this.parkedIds.clear();
  }

  /** Attempts cut short after 5 s are not recorded: they stay due and run again elsewhere or later. */
  private async settleInFlight(): Promise<void> {
    const settle = Promise.allSettled([...this.inFlight.values()]);
    await Promise.race([settle, new Promise((r) => setTimeout(r, 5000).unref())]);
  }

  private run(key: DeliveryKey): void {
    const id = deliveryStream(key.orgId, key.deliveryId);
    // Parked: it joins its receiver's queue in its turn, whatever fires meanwhile.
    if (this.inFlight.has(id) || this.parkedIds.has(id) || !this.delivering) return;
    this.track(id, key, this.runOnce(id, key));
  }

  private track(id: string, key: DeliveryKey, work: Promise<void>): void {
    const run: Promise<void> = work
      .catch((error: unknown) => {
        this.known.delete(id);
        this.logger.error({ msg: 'callback delivery failed to run; retrying', deliveryId: key.deliveryId, error: String(error) });
        this.timers.schedule(id, key, this.clock.now().getTime() + 1000);
      })
      .finally(() => {
        if (this.inFlight.get(id) === run) this.inFlight.delete(id);
      });
    this.inFlight.set(id, run);
  }

  private async runOnce(id: string, key: DeliveryKey): Promise<void> {
    const known = this.known.get(id);
    const entry = known?.state !== undefined ? { revision: known.revision, state: known.state } : await this.load(id);
    if (!entry) return;
    const { state } = entry;
    if (state.status !== 'pending' && state.status !== 'failed') {
      this.finish(id, entry.revision);
      return;
    }
    const due = Date.parse(state.nextAttemptAt!);
    if (due > this.clock.now().getTime() + DUE_SLACK_MS) {
      this.known.set(id, { revision: entry.revision });
      this.timers.schedule(id, key, due);
      return;
    }
    if (state.request!.body === null) {
      // The subject's personal data was erased: there is nothing left to send.
      await this.record(id, key, entry, {
        type: 'GiveUp',
        cycle: state.cycle,
        at: this.clock.now().toISOString(),
        reason: "The callback's personal data was erased",
      });
      return;
    }
    const origin = laneOf(key.orgId, state.destination!.url);
    // A delivery that will wait, for its receiver or for one of the process's slots, keeps its body
    // here meanwhile only while fewer than WAITING_BODIES do (a busy receiver's short queue, the
    // usual case, where reading each stream again would cost the worker's thread a read and a fold per callback);
    // past them it reads its stream again when its turn comes.
    const waits = this.limiter.wouldWait(origin) || this.slots.wouldWait(key.orgId);
    const keeps = !waits || this.waitingBodies < (this.options.waitingBodies ?? WAITING_BODIES);
    if (!keeps) this.known.set(id, { revision: entry.revision });
    if (waits && keeps) this.waitingBodies++;
    const ticket: Ticket = {
      id,
      key,
      origin,
      turn: { org: key.orgId, group: receiverTurnOf(state.request!) },
      revision: entry.revision,
      held: keeps ? entry : undefined,
      counted: waits && keeps,
    };
    if (this.limiter.waiting(origin) >= QUEUED_PER_RECEIVER) return this.park(ticket);
    // Returned, not awaited: this function's frame, which holds the state and its body, ends here,
    // and the ticket keeps the body only within WAITING_BODIES. A frame waiting here used to keep
    // every body until its turn (20,000 callbacks of 16 KiB each: 599 MB of heap against 276 MB).
    return this.takeTurn(ticket);
  }

  private park(ticket: Ticket): void {
    let queue = this.parked.get(ticket.origin);
    if (!queue) {
      queue = new TurnQueue();
      this.parked.set(ticket.origin, queue);
    }
    queue.push(ticket.turn, ticket);
    this.parkedIds.add(ticket.id);
  }

  /**
   * A place in `origin`'s queue came free: parked deliveries, in their turn, take the free places.
   * Each joins the queue at once (or takes a free slot of the receiver, of which there are few).
   */
  private unpark(origin: string): void {
    const queue = this.parked.get(origin);
    while (queue !== undefined && queue.size > 0 && this.limiter.waiting(origin) < QUEUED_PER_RECEIVER) {
      const ticket = queue.shift()!;
      this.parkedIds.delete(ticket.id);
      this.track(ticket.id, ticket.key, this.takeTurn(ticket));
    }
    if (queue?.size === 0) this.parked.delete(origin);
  }

  /** Waits for the receiver's turn and one of the process's slots, attempts and records. */
  private async takeTurn(ticket: Ticket): Promise<void> {
    const { id, key, origin, revision } = ticket;
    let waited = ticket.counted;
    const turnCame = () => {
      if (waited) this.waitingBodies--;
      waited = false;
    };
    // Users take turns at a busy receiver's lane of the organization (DestinationLimiter); then, for one
    // of the process's slots, organizations by share (FairSlots). The slot is taken only once the
    // receiver has room (deliveries queued at a receiver that never answers hold none), and held
    // until the attempt is recorded, the receiver's own place given back as soon as it answered:
    // what one organization's burst leaves to do on the event loop stays bounded by its share.
    let release: (() => void) | undefined;
    try {
      const turn = await this.limiter.run(
        origin,
        async (): Promise<{ outcome: AttemptOutcome; current: Required<Known> } | 'moved' | undefined> => {
          this.unpark(origin);
          release = await this.slots.acquire(key.orgId);
          turnCame();
          if (!this.delivering) return undefined;
          const current = ticket.held ?? (await this.load(id));
          ticket.held = undefined;
          // Moved meanwhile (a redelivery, another worker): decided again from the log.
          if (current === undefined || current.revision !== revision) return 'moved';
          const outcome = await this.attempt(key, current.state, current.state.destination!);
          return outcome === undefined ? undefined : { outcome, current };
        },
        ticket.turn,
      );
      if (turn === 'moved') return this.reconsider(id, key);
      if (turn === undefined) return;
      const { outcome, current } = turn;
      await this.record(id, key, current, {
        type: 'RecordAttempt',
        cycle: current.state.cycle,
        attempt: current.state.attempts + 1,
        at: this.clock.now().toISOString(),
        outcome,
        schedule: this.config.callbackRetryScheduleMs,
        random: Math.random(),
      });
    } finally {
      turnCame();
      release?.();
    }
  }

  /**
   * One signed POST; undefined when this process no longer delivers (stopping, or paused for a
   * lease handover while the attempt waited for a slot): nothing is sent or recorded, the
   * delivery stays due for whoever delivers next.
   */
  private async attempt(key: DeliveryKey, state: CallbackDeliveryState, destination: CallbackDestination): Promise<AttemptOutcome | undefined> {
    if (!this.delivering) return undefined;
    const started = performance.now();
    const failed = (error: string, status: number | null = null, retryAfterMs: number | null = null): AttemptOutcome => ({
      ok: false,
      status,
      error,
      durationMs: Math.round(performance.now() - started),
      retryAfterMs,
    });
    const rawBody = JSON.stringify(sendableBody(state.request!.body!));
    const opened: Record<string, string> = {};
    let url: string;
    try {
      url = openUrl(destination, this.keyring);
      for (const [name, sealed] of Object.entries(destination.headers)) opened[name.toLowerCase()] = this.keyring.open(sealed);
    } catch {
      return failed('The configured callback URL or headers could not be decrypted (is WARDEN_SECRET_KEY complete?)');
    }
    // User info is sent as HTTP clients send it, as Basic credentials, and the URL without it: the
    // guarded client refuses credentials in a URL, and a request line must not carry them. The
    // messages below never show the URL or its user info.
    const sendable = withUserInfoAsBasic(url, opened);
    if (sendable === 'invalid') return failed('The callback URL has user info that is not valid percent-encoding; nothing was sent');
    if (sendable === 'authorization-too') {
      return failed('The callback URL has user info and its headers an Authorization header; keep one, apply, then redeliver');
    }
    ({ url } = sendable);
    const { headers } = sendable;
    try {
      const signer = await this.signingKeys.signer(key.orgId);
      const t = Math.floor(this.clock.now().getTime() / 1000);
      headers[SIGNATURE_HEADER.toLowerCase()] = formatSignatureHeader(t, signer.kid, signer.sign(signedPayload(t, key.deliveryId, rawBody)));
    } catch (error) {
      return failed(`Signing failed, nothing was sent: ${error instanceof Error ? error.message : String(error)}`);
    }
    headers[DELIVERY_ID_HEADER.toLowerCase()] = key.deliveryId;
    headers['content-type'] = 'application/json';
    try {
      const res = await this.http.request({
        method: 'POST',
        url,
        headers,
        body: rawBody,
        timeoutMs: this.options.attemptTimeoutMs,
        maxBytes: this.options.responseLimitBytes,
        discardBody: true,
        maxRedirects: 0,
      });
      if (res.status >= 200 && res.status < 300) {
        return { ok: true, status: res.status, durationMs: Math.round(performance.now() - started) };
      }
      return failed(`The receiver answered ${res.status}`, res.status, parseRetryAfterMs(res.headers['retry-after'], this.clock.now()));
    } catch (error) {
      if (this.stopping) return undefined;
      return failed(error instanceof OutboundError ? error.message : 'Outbound request failed');
    }
  }

  private async record(id: string, key: DeliveryKey, entry: Known, command: CallbackDeliveryCommand): Promise<void> {
    let handled: Handled<CallbackDeliveryEvent, CallbackDeliveryState>;
    try {
      // No retry: the attempt was made on `entry`'s state; a stream that moved meanwhile
      // (redelivery, another worker) is decided again from the log, not this outcome re-applied.
      // The decider refuses a stale attempt on a newer state too (its cycle and number). Fresh
      // event ids: two workers recording the same attempt conflict, never pass as a replay.
      handled = await this.soon(() =>
        this.aggregates.handle(id, callbackDeliveryDecider, command, { orgId: key.orgId, correlationId: key.deliveryId, actor: 'callbacks' }, { retries: 0 }),
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return this.reconsider(id, key);
    }
    const { events, state, revision } = handled;
    if (events.length === 0) return this.reconsider(id, key);
    for (const e of events) {
      if (e.type === 'CallbackDelivered') this.attempts.inc({ outcome: 'delivered' });
      else if (e.type === 'CallbackAttemptFailed') this.attempts.inc({ outcome: 'failed' });
      else if (e.type === 'CallbackDeadLettered') this.attempts.inc({ outcome: 'dead' });
    }
    if (state.status === 'dead') {
      this.logger.warn({ msg: 'callback dead-lettered', orgId: key.orgId, deliveryId: key.deliveryId, attempts: state.attempts });
    }
    // The stream had moved past `entry` before these events (another worker, a redelivery): the log says what is next.
    if (revision - events.length !== entry.revision) return this.reconsider(id, key);
    if (state.status !== 'pending' && state.status !== 'failed') {
      this.finish(id, revision);
      return;
    }
    // A retry: read from the log when due (Known).
    this.known.set(id, { revision });
    this.timers.schedule(id, key, Date.parse(state.nextAttemptAt!));
  }

  /**
   * Outcomes arrive one response at a time; appending each at once would cost a commit (and a
   * sync) apiece. Records issued within RECORD_BATCH_MS go out in one tick, so the log commits
   * them together. The callback is already sent: a crash in this window only means one more send.
   */
  private soon<T>(task: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      this.recordQueue.push(() => void task().then(resolve, reject));
      if (!this.recordTimer) {
        this.recordTimer = setTimeout(() => {
          this.recordTimer = undefined;
          for (const run of this.recordQueue.splice(0)) run();
        }, RECORD_BATCH_MS);
      }
    });
  }

  /** The stream moved under us (redelivery, another worker): decide again on what it says now. */
  private reconsider(id: string, key: DeliveryKey): void {
    this.known.delete(id);
    this.timers.schedule(id, key, this.clock.now().getTime());
  }

  private async load(id: string): Promise<Required<Known> | undefined> {
    const recorded = await this.events.readStream(id);
    if (recorded.length === 0) return undefined;
    const state = foldStream(callbackDeliveryDecider, id, recorded);
    return { state, revision: recorded[recorded.length - 1]!.revision };
  }

  private finish(id: string, revision: number): void {
    this.known.delete(id);
    this.timers.cancel(id);
    this.finished.delete(id);
    this.finished.set(id, revision);
    if (this.finished.size > FINISHED_MEMORY) this.finished.delete(this.finished.keys().next().value!);
  }
}

/** A delivery due now, waiting for its turn at its receiver (parked or queued). */
interface Ticket {
  readonly id: string;
  readonly key: DeliveryKey;
  /** Its organization's lane at its receiver (laneOf). */
  readonly origin: string;
  readonly turn: Turn;
  /** The revision of its stream it was decided on. */
  readonly revision: number;
  /** The state to send, if kept while waiting (within WAITING_BODIES); else read again at its turn. */
  held: Required<Known> | undefined;
  /** Whether it counts among the WAITING_BODIES until its turn. */
  readonly counted: boolean;
}

/**
 * The concurrency limit's unit: an organization's callbacks to one scheme, host and port. Each
 * organization has slots and a queue of its own at a receiver it shares with others: an attempt
 * cannot be cut short before its deadline, so with the slots shared, turns alone let an organization
 * whose path at the receiver hangs or answers slowly hold every slot (each slot another
 * organization's fast callback gave back went to it again at its next turn), and its queue fill with
 * its own deliveries; another organization calling back the same host waited p50 54 s, p99 102 s
 * (a helper's hunt, docs/benchmarks.md, "A ninth hunt"). The process's slots (FairSlots) still
 * bound every organization's attempts together.
 */
function laneOf(orgId: string, url: string): string {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = url;
  }
  // An origin has no space: the last one ends the organization's id.
  return `${orgId} ${origin}`;
}

/**
 * Whose turn a delivery takes at a busy receiver: the action's user, named by the body's `creator`
 * (the user the delivery reactor keys the action by), else the personal-data subject, else the
 * item. The subject alone is null for a rule's callback whose body carries nothing users wrote,
 * which gave each of a flood's callbacks a turn of its own, in front of the other users'.
 */
export function receiverTurnOf(request: Pick<NonNullable<CallbackDeliveryState['request']>, 'body' | 'subject' | 'item'>): string {
  const creator = (request.body as { creator?: { id?: unknown; typeId?: unknown } } | null)?.creator;
  if (typeof creator?.id === 'string' && typeof creator.typeId === 'string') return actionUserKey({ id: creator.id, typeId: creator.typeId }, request.item);
  return request.subject ?? actionUserKey(undefined, request.item);
}

/** An action's user (its item's creator), else the item itself: the delivery reactor's key and the receiver's turn. */
export function actionUserKey(creator: { id: string; typeId: string } | null | undefined, item: { id: string; typeId: string }): string {
  return creator ? `user:${creator.typeId}:${creator.id}` : `item:${item.typeId}:${item.id}`;
}
