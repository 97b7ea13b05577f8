import { Inject, Injectable } from '@nestjs/common';
import { type EventStore, WrongExpectedRevisionError } from '#warden/eventstore';
import { type Clock, type CommandContext, deterministicId } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import type { RuleDailyActionCounted } from '../domain/evaluation.events.js';
import { dailyActionsStream } from '../domain/evaluation.streams.js';
import { utcDay } from '../domain/rule-selection.js';

/**
 * maxDailyActions, decided on the write side: an item counts toward a rule's day by appending to
 * the rule's daily stream with the expected revision, so concurrent evaluations cannot overshoot.
 * The event id is derived from rule, day and item version, so a re-run counts the same item once.
 */
@Injectable()
export class DailyActionCap {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly aggregates: AggregateStore,
  ) {}

  /** True when the item may fire the rule today (and is now counted); false once capped. */
  async take(
    context: CommandContext,
    rule: { id: string; maxDailyActions: number },
    item: { id: string; typeId: string },
    version: number,
  ): Promise<boolean> {
    const day = utcDay(this.clock.now());
    const stream = dailyActionsStream(context.orgId, rule.id, day);
    const eventId = deterministicId('daily-action', context.orgId, rule.id, day, item.typeId, item.id, String(version));
    const event: RuleDailyActionCounted = {
      type: 'RuleDailyActionCounted',
      data: { ruleId: rule.id, item: { id: item.id, typeId: item.typeId }, version },
    };
    for (let attempt = 0; attempt < 1000; attempt++) {
      const counted = await this.events.readStream(stream);
      if (counted.some((e) => e.id === eventId)) return true;
      if (counted.length >= rule.maxDailyActions) return false;
      const expected = counted.length === 0 ? 'no_stream' : counted[counted.length - 1]!.revision;
      try {
        await this.aggregates.record(stream, [event], context, expected, () => eventId);
        return true;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
    throw new Error(`Could not count an action of rule ${rule.id}: too much contention`);
  }
}
