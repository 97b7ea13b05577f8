import { Logger } from '@nestjs/common';
import type { EventStore, Subscription } from '#warden/eventstore';
import { SUBJECT_ERASED_EVENT, SUBJECT_ERASURE_REQUESTED_EVENT, subjectErasureOf } from '#warden/kernel';

const RETRY_MS = 1_000;

/**
 * Follows the log for GDPR erasures on behalf of one process's memory (docs/gdpr.md): the request
 * (SUBJECT_ERASURE_REQUESTED_EVENT), so that nothing of the subject is used from memory while the
 * deletion runs, and the completion (SUBJECT_ERASED_EVENT), for what was fetched meanwhile. Every
 * process follows the log itself: an in-memory copy is no read model, and the erasure may be run
 * by another process. Starts from the head of the log (the memory it guards starts empty); a
 * dropped subscription is re-established from the last event seen, so no erasure is missed.
 */
export class ErasureWatch {
  private readonly logger = new Logger('partial-items');
  private started: Promise<void> | undefined;
  private subscription: Subscription | undefined;
  private retry: NodeJS.Timeout | undefined;
  private position = 0;
  /** The head was read: `position` is where to follow from. */
  private positioned = false;
  private closed = false;
  /** Subscribed and not failed: what it guards may be kept. */
  live = false;

  constructor(
    private readonly events: EventStore,
    private readonly onErased: (orgId: string, subject: string) => void,
    /**
     * Following failed: an erasure recorded from here until the subscription has caught up again
     * would be seen late, so what the memory holds must go (the subscription resumes where it
     * stopped, and `live` turns true as soon as it does, before its backlog is read).
     */
    private readonly onLost: () => void,
  ) {}

  /** Resolves once following the log from its head (at the first call); never rejects: a failure leaves `live` false and is retried. */
  start(): Promise<void> {
    this.started ??= this.events.headPosition().then(
      (head) => {
        this.position = head;
        this.positioned = true;
        this.subscribe();
      },
      (error: unknown) => this.failed(error),
    );
    return this.started;
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.live = false;
    clearTimeout(this.retry);
    await this.subscription?.stop();
  }

  private subscribe(): void {
    if (this.closed) return;
    this.live = true;
    this.subscription = this.events.subscribeToAll({
      after: this.position,
      eventTypes: [SUBJECT_ERASURE_REQUESTED_EVENT, SUBJECT_ERASED_EVENT],
      personalData: false,
      onEvents: async (events, through) => {
        for (const e of events) {
          if (e.position <= this.position) continue;
          const erasure = subjectErasureOf(e);
          if (erasure) this.onErased(e.metadata.orgId, erasure.subject);
          this.position = e.position;
        }
        if (through !== undefined && through > this.position) this.position = through;
      },
      onError: (error) => this.failed(error),
    });
  }

  private failed(error: unknown): void {
    this.live = false;
    if (this.closed) return;
    this.onLost();
    this.logger.error({ msg: 'following GDPR erasures failed; fetched items are not cached until it resumes', error: String(error) });
    const dropped = this.subscription;
    this.subscription = undefined;
    void (dropped?.stop() ?? Promise.resolve())
      .catch(() => undefined)
      .finally(() => {
        if (this.closed) return;
        this.retry = setTimeout(() => {
          if (this.positioned) this.subscribe();
          else {
            // The head could not be read: start again.
            this.started = undefined;
            void this.start();
          }
        }, RETRY_MS);
        this.retry.unref();
      });
  }
}
