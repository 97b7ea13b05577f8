import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetCatalogSettingsQuery } from '#warden/catalog';
import type { ItemIdentifier } from '#warden/ingestion';
import { type EventStore, newestEvents } from '#warden/eventstore';
import { type Clock, recordedAs } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import { isCountingApplied, strikeCount, userStrikesDecider } from '../domain/user-strikes.decider.js';
import type { UserStrikesApplied } from '../domain/user-strikes.events.js';
import { userStrikesStream } from '../domain/user-strikes.streams.js';
import { StrikeApplier } from '../strikes/strike-applier.js';
import type { StrikeEntry, UserStrikeHistory, UserStrikes } from './user-standing.ports.js';

/** Enforcement's side of USER_STRIKES (user-standing.ports.ts). */
@Injectable()
export class UserStrikesReader implements UserStrikes {
  constructor(
    private readonly applier: StrikeApplier,
    private readonly aggregates: AggregateStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  count(orgId: string, user: ItemIdentifier): Promise<number | null> {
    return this.applier.liveCount(orgId, user);
  }

  /**
   * The count from the decider's state as of a revision (what every other reader of the count
   * computes; cached or snapshotted), the newest `limit` entries from the UserStrikesApplied events
   * up to that revision, read backwards: a user with 100,000 applications costs what one with a
   * hundred does.
   */
  async history(orgId: string, user: ItemIdentifier, limit = 100): Promise<UserStrikeHistory | null> {
    const stream = userStrikesStream(orgId, user);
    if (!stream) return null;
    const [settings, { state, revision }] = await Promise.all([
      this.queries.execute(new GetCatalogSettingsQuery(orgId, 'strikes')),
      this.aggregates.stateAt(stream, userStrikesDecider),
    ]);
    const windowDays = settings?.windowDays ?? null;
    const now = this.clock.now();
    const applied =
      revision < 0 ? [] : await newestEvents(this.events, stream, { count: limit, through: revision, wanted: (e) => e.type === 'UserStrikesApplied' });
    const strikes = applied
      .flatMap((e) => {
        const data = recordedAs<UserStrikesApplied>(e, 'UserStrikesApplied')?.data;
        return data ? [data] : [];
      })
      // An application reversed by an accepted appeal, or aged out of the window, counts for nothing.
      .map((data) => entryOf(data, isCountingApplied(state, data, now, windowDays)));
    return { count: strikeCount(state, now, windowDays), windowDays, strikes };
  }
}

function entryOf(data: UserStrikesApplied['data'], counting: boolean): StrikeEntry {
  return {
    strikes: data.strikes,
    countAfter: data.countAfter,
    actionId: data.action.id,
    policyIds: data.policyIds,
    item: data.item,
    appliedAt: data.appliedAt,
    counting,
  };
}
