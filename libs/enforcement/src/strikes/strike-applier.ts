import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { type ActionDefinition, GetCatalogSettingsQuery, GetEverEntitiesQuery, GetLiveEntitiesQuery } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { latestSubmission } from '#warden/ingestion';
import { type Clock, type CommandContext, deterministicId, type RecordedEvent, recordedAs } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import { executableActions } from '../domain/execute-action-input.js';
import { actionStrikes } from '../domain/user-strikes.inheritance.js';
import { type RecordedApplication, type StrikeThreshold, strikeCount, userStrikesDecider } from '../domain/user-strikes.decider.js';
import type { StruckUser } from '../domain/user-strikes.events.js';
import { userStrikesStream } from '../domain/user-strikes.streams.js';
import { publicationKey } from './publication-key.js';

type PublishedAction = ActionCallbackRequested['data'];

/** What an accepted appeal reverses (from the appeals module's AppealDecided, ids only). */
export interface AcceptedAppeal {
  readonly appealId: string;
  readonly actionedItem: { readonly id: string; readonly typeId: string };
  readonly actionsTaken: readonly string[];
  readonly decidedAt: string;
}

/** The strikes one published action asks for, keyed so that it counts once. */
interface StrikeApplication {
  readonly stream: string;
  readonly key: string;
  readonly user: { readonly id: string; readonly typeId: string };
  readonly data: PublishedAction;
}

/**
 * Within a process one user's applications are queued and appended together (AggregateStore);
 * appliers in other processes (a second worker, the CLI) may still append first. Each retry reads
 * forward and re-decides, losing only to an append that got in first: this bounds a burst, not a
 * steady state.
 */
const CONCURRENCY_RETRIES = 200;

/**
 * Applies the strikes of a published action (ActionCallbackRequested from a rule or a decision)
 * to its user, through the user-strikes decider, and answers the count after it.
 */
@Injectable()
export class StrikeApplier {
  constructor(
    private readonly queries: QueryBus,
    private readonly aggregates: AggregateStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The user's count right after `event`'s action: its strikes applied first unless they already
   * were (same key, same answer). Null: no user, or the event applies no strikes to anyone.
   */
  countAfter(event: RecordedEvent): Promise<number | null> {
    return this.applyAndCount(event, true);
  }

  /** Applies `event`'s strikes: no count is read for an action without strikes. */
  async apply(event: RecordedEvent): Promise<void> {
    await this.applyAndCount(event, false);
  }

  /**
   * Applies the strikes of one user's actions in the order given (log order): what each needs is
   * read at once for all, then the applications are queued in order, so the write path decides
   * them one after the other and appends them together instead of one append each. Answers each
   * action's count after it (as countAfter) when `answer` is set; else only where strikes were applied.
   */
  async applyInOrder(events: readonly RecordedEvent[], answer = false): Promise<Array<number | null>> {
    const prepared = await Promise.all(events.map((event) => this.prepare(event, answer)));
    const answers: Array<Promise<number | null>> = [];
    for (const { run, readsCount } of prepared) {
      // A count read from the state (an action without strikes of its own) waits for the applications queued before it.
      answers.push(readsCount ? Promise.all(answers).then(run) : run());
    }
    return Promise.all(answers);
  }

  private async applyAndCount(event: RecordedEvent, answer: boolean): Promise<number | null> {
    return (await this.prepare(event, answer)).run();
  }

  /**
   * Reads what applying `event`'s strikes needs; the application itself is queued when `run` is
   * called. `readsCount`: `run` only reads the user's count, queueing nothing.
   */
  private async prepare(event: RecordedEvent, answer: boolean): Promise<{ run: () => Promise<number | null>; readsCount: boolean }> {
    const application = applicationOf(event);
    if (!application) return { run: async () => null, readsCount: false };
    const orgId = event.metadata.orgId;
    const [actions, policies, settings] = await Promise.all([
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'action')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'policy')),
      this.queries.execute(new GetCatalogSettingsQuery(orgId, 'strikes')),
    ]);
    const { data } = application;
    const strikes = actionStrikes(
      actions.find((a) => a.id === data.action.id),
      data.policies.map((p) => p.id),
      new Map(policies.map((p) => [p.id, p])),
    );
    const windowDays = settings?.windowDays ?? null;
    if (strikes <= 0) return { run: async () => (answer ? this.liveCount(orgId, application.user, windowDays) : null), readsCount: answer };
    // A re-run (a redelivered batch, or the actions reactor going over what its predecessors
    // handled at an upgrade) finds the application in the state: no read of the user's item, no command decided for nothing.
    if (answer) {
      // The state this process knows, when it has one, without reading the stream forward: in a
      // burst every action is new, and the read (37 µs) found nothing each time. An application
      // made meanwhile by another process is found by the command itself, decided again on the
      // stream after its append's expected revision failed (docs/benchmarks.md, "Floods and long
      // histories", fifth session).
      const known = this.aggregates.knownState(application.stream, userStrikesDecider) ?? (await this.aggregates.state(application.stream, userStrikesDecider));
      const applied = known.applications.get(application.key);
      if (applied) return { run: async () => applied.countAfter, readsCount: false };
    }
    const thresholds = thresholdsOf(settings?.thresholds ?? [], actions);
    const user = await this.userItem(orgId, application.user, thresholds.some(opensJob));
    const run = async () => {
      const handled = await this.aggregates.handle(
        application.stream,
        userStrikesDecider,
        {
          type: 'ApplyUserStrikes',
          key: application.key,
          strikes,
          action: { id: data.action.id },
          policyIds: data.policies.map((p) => p.id),
          item: { id: data.item.id, typeId: data.item.typeId },
          user,
          at: event.metadata.occurredAt,
          now: this.clock.now().toISOString(),
          windowDays,
          thresholds,
        },
        { orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'enforcement' },
        {
          retries: CONCURRENCY_RETRIES,
          eventIds: (e, i) => deterministicId('user-strikes-event', application.stream, application.key, String(i)),
        },
      );
      // An application recorded long ago is no longer held by itself in the state: its count then is
      // not at hand, the count now is the closest answer (a re-run of an action that old is rare).
      return handled.state.applications.get(application.key)?.countAfter ?? strikeCount(handled.state, new Date(event.metadata.occurredAt), windowDays);
    };
    return { run, readsCount: false };
  }

  /**
   * An accepted appeal: the appealed actions on the item stop counting against the user who
   * received them (a USER item itself; else the item's creator as last submitted). A content item
   * Warden never stored gave no one strikes or penalties: nothing to reverse. Recorded once per appeal.
   */
  async reverse(orgId: string, appeal: AcceptedAppeal, context: CommandContext): Promise<void> {
    const user = await this.struckUser(orgId, appeal.actionedItem);
    const stream = user && userStrikesStream(orgId, user);
    if (!user || !stream) return;
    const settings = await this.queries.execute(new GetCatalogSettingsQuery(orgId, 'strikes'));
    const earlier = await this.earlierApplications(stream, appeal.actionedItem);
    await this.aggregates.handle(
      stream,
      userStrikesDecider,
      {
        type: 'ReverseUserActions',
        appealId: appeal.appealId,
        user,
        item: appeal.actionedItem,
        actionIds: appeal.actionsTaken,
        earlier,
        at: appeal.decidedAt,
        windowDays: settings?.windowDays ?? null,
      },
      context,
      {
        retries: CONCURRENCY_RETRIES,
        eventIds: (e, i) => deterministicId('user-strikes-reversal', stream, appeal.appealId, String(i)),
      },
    );
  }

  /**
   * The item's applications the user's state no longer holds one by one, read from the stream: a
   * reversal of actions on an item is rare enough to read the history, and only for a user with
   * more applications than the state holds.
   */
  private async earlierApplications(stream: string, item: { id: string; typeId: string }): Promise<RecordedApplication[]> {
    const state = await this.aggregates.state(stream, userStrikesDecider);
    if (state.earlier.count === 0) return [];
    const { events } = await this.aggregates.load(stream, userStrikesDecider);
    return events
      .filter((e) => e.type === 'UserStrikesApplied' && e.data.item.id === item.id && e.data.item.typeId === item.typeId && !state.applications.has(e.data.key))
      .map((e) => {
        const data = (e as Extract<typeof e, { type: 'UserStrikesApplied' }>).data;
        return { key: data.key, strikes: data.strikes, appliedAt: data.appliedAt, actionId: data.action.id, item: data.item };
      });
  }

  /**
   * Whose strikes an action on the item gave: a USER item itself (stored or not: an executed action
   * strikes a user Warden never saw), else the creator of its latest version.
   */
  private async struckUser(orgId: string, item: { id: string; typeId: string }): Promise<StruckUser | undefined> {
    const itemTypes = await this.queries.execute(new GetEverEntitiesQuery(orgId, 'itemType'));
    if (itemTypes.find((t) => t.id === item.typeId)?.kind === 'USER') return { id: item.id, typeId: item.typeId };
    return (await latestSubmission(this.events, orgId, item))?.creator ?? undefined;
  }

  /** The user's strikes within the window now; null when the identifier names no stream. */
  async liveCount(orgId: string, user: { id: string; typeId: string }, windowDays?: number | null): Promise<number | null> {
    const stream = userStrikesStream(orgId, user);
    if (!stream) return null;
    const window = windowDays !== undefined ? windowDays : ((await this.queries.execute(new GetCatalogSettingsQuery(orgId, 'strikes')))?.windowDays ?? null);
    return strikeCount(await this.aggregates.state(stream, userStrikesDecider), this.clock.now(), window);
  }

  /**
   * The USER item a threshold acts on: its type's display name, and its latest version when
   * `withVersion` (only a threshold that opens a review job records it: reading the user's item
   * stream for every application cost a read per action; without it, 0 as for a user never stored).
   */
  private async userItem(orgId: string, user: { id: string; typeId: string }, withVersion: boolean) {
    const [itemTypes, latest] = await Promise.all([
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType')),
      withVersion ? latestSubmission(this.events, orgId, user) : null,
    ]);
    const typeName = itemTypes.find((t) => t.id === user.typeId)?.name ?? user.typeId;
    return { id: user.id, typeId: user.typeId, typeName, version: latest?.version ?? 0 };
  }
}

/** Who the action strikes and under which key (publicationKey); a threshold's own action strikes no one. */
export function applicationOf(event: RecordedEvent): StrikeApplication | undefined {
  const published = recordedAs<ActionCallbackRequested>(event, 'ActionCallbackRequested');
  if (!published) return undefined;
  const { data } = published;
  if (data.trigger === 'strike-threshold' || !data.creator) return undefined;
  const stream = userStrikesStream(event.metadata.orgId, data.creator);
  if (!stream) return undefined;
  return { stream, key: publicationKey(published), user: data.creator, data };
}

/** Whether a threshold's action opens a review job (the one use of the user item's version). */
const opensJob = (threshold: StrikeThreshold) => threshold.action !== undefined && threshold.action.kind !== 'CUSTOMER_DEFINED_ACTION';

/** The thresholds with what firing them needs: each action as executable (the built-in enqueues included). */
function thresholdsOf(thresholds: ReadonlyArray<{ strikes: number; actionId: string }>, actions: readonly ActionDefinition[]): StrikeThreshold[] {
  const executable = executableActions(actions);
  return thresholds.map((t) => {
    const action = executable.get(t.actionId);
    return action
      ? { strikes: t.strikes, actionId: t.actionId, action: { kind: action.kind, body: action.body } }
      : { strikes: t.strikes, actionId: t.actionId };
  });
}
