import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetCatalogSettingsQuery } from '#warden/catalog';
import type { ItemIdentifier } from '#warden/ingestion';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
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
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  count(orgId: string, user: ItemIdentifier): Promise<number | null> {
    return this.applier.liveCount(orgId, user);
  }

  /**
   * The user's stream read once: the count from the decider's state (what every other reader of
   * the count computes), the entries from its UserStrikesApplied events.
   */
  async history(orgId: string, user: ItemIdentifier, limit = 100): Promise<UserStrikeHistory | null> {
    const stream = userStrikesStream(orgId, user);
    if (!stream) return null;
    const [settings, { state, events }] = await Promise.all([
      this.queries.execute(new GetCatalogSettingsQuery(orgId, 'strikes')),
      this.aggregates.load(stream, userStrikesDecider),
    ]);
    const windowDays = settings?.windowDays ?? null;
    const now = this.clock.now();
    const strikes = events
      .filter((e): e is UserStrikesApplied => e.type === 'UserStrikesApplied')
      // An application reversed by an accepted appeal, or aged out of the window, counts for nothing.
      .map((e) => entryOf(e.data, isCountingApplied(state, e.data, now, windowDays)))
      .reverse()
      .slice(0, limit);
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
