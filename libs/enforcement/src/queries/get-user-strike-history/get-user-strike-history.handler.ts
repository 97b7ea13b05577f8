import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetCatalogSettingsQuery } from '#warden/catalog';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { GetUserStrikeHistoryQuery, type StrikeEntry, type UserStrikeHistory } from '#warden/rules';
import { AggregateStore } from '#warden/storage';
import { isCountingApplied, strikeCount, userStrikesDecider } from '../../domain/user-strikes.decider.js';
import type { UserStrikesApplied } from '../../domain/user-strikes.events.js';
import { userStrikesStream } from '../../domain/user-strikes.streams.js';

/**
 * The user's stream read once: the count from the decider's state (what every other reader of the
 * count computes), the entries from its UserStrikesApplied events.
 */
@QueryHandler(GetUserStrikeHistoryQuery)
export class GetUserStrikeHistoryHandler implements IQueryHandler<GetUserStrikeHistoryQuery> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(query: GetUserStrikeHistoryQuery): Promise<UserStrikeHistory | null> {
    const stream = userStrikesStream(query.orgId, query.user);
    if (!stream) return null;
    const [settings, { state, events }] = await Promise.all([
      this.queries.execute(new GetCatalogSettingsQuery(query.orgId, 'strikes')),
      this.aggregates.load(stream, userStrikesDecider),
    ]);
    const windowDays = settings?.windowDays ?? null;
    const now = this.clock.now();
    const strikes = events
      .filter((e): e is UserStrikesApplied => e.type === 'UserStrikesApplied')
      // An application reversed by an accepted appeal, or aged out of the window, counts for nothing.
      .map((e) => entryOf(e.data, isCountingApplied(state, e.data, now, windowDays)))
      .reverse()
      .slice(0, query.limit);
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
