import { type Decider, DomainError } from '#warden/kernel';
import type { RuleDailyActionCounted } from './evaluation.events.js';

/** Counts an item's content toward its rule's actions of the day (the stream is the rule's day). */
export interface CountDailyAction {
  readonly type: 'CountDailyAction';
  readonly ruleId: string;
  readonly item: { readonly id: string; readonly typeId: string };
  readonly version: number;
  /** The digest of the item's content (item-content.ts): what is counted once. */
  readonly content: string;
  /** The rule's maxDailyActions. */
  readonly max: number;
}

export type DailyActionCapCommand = CountDailyAction;
export type DailyActionCapEvent = RuleDailyActionCounted;

/** An item content counted, and those counted before it: folding a day costs one step per count. */
interface Counted {
  readonly key: string;
  readonly earlier: Counted | null;
}

export interface DailyActionCapState {
  readonly count: number;
  readonly latest: Counted | null;
}

/** The rule already acted on its maximum of items today: this item must not fire it. */
export class DailyActionCapReached extends DomainError {
  constructor(ruleId: string, max: number) {
    super('conflict', [{ title: 'Daily action cap reached', detail: `Rule ${ruleId} already acted on ${max} items today` }]);
  }
}

/** v1 events (content null) counted item versions; later ones count contents. */
const countedKey = (item: CountDailyAction['item'], version: number, content: string | null) =>
  JSON.stringify(content === null ? [item.typeId, item.id, 'version', version] : [item.typeId, item.id, 'content', content]);

function isCounted(state: DailyActionCapState, key: string): boolean {
  for (let c = state.latest; c !== null; c = c.earlier) if (c.key === key) return true;
  return false;
}

/**
 * A rule's maxDailyActions, decided on the write side (DESIGN.md section 3): appended with the
 * expected revision of the day's stream, so concurrent evaluations cannot overshoot. Counting an
 * item's content again (a re-run, or a re-submission of identical content, whose action has the
 * same delivery id and is not sent twice) decides nothing and leaves it allowed; past the cap it
 * is refused.
 */
export const dailyActionCapDecider: Decider<DailyActionCapCommand, DailyActionCapState, DailyActionCapEvent> = {
  eventTypes: { RuleDailyActionCounted: true },
  initialState: { count: 0, latest: null },

  decide(command, state) {
    if (isCounted(state, countedKey(command.item, command.version, command.content))) return [];
    if (state.count >= command.max) throw new DailyActionCapReached(command.ruleId, command.max);
    return [
      {
        type: 'RuleDailyActionCounted',
        data: {
          ruleId: command.ruleId,
          item: { id: command.item.id, typeId: command.item.typeId },
          version: command.version,
          content: command.content,
        },
      },
    ];
  },

  evolve(state, event) {
    const key = countedKey(event.data.item, event.data.version, event.data.content);
    return { count: state.count + 1, latest: { key, earlier: state.latest } };
  },
};
