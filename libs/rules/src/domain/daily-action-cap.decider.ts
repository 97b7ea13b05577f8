import { type Decider, DomainError, type Json } from '#warden/kernel';
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

/** Keys remembered per generation; two generations are kept, so the state stays bounded however busy the day. */
export const COUNTED_KEYS_GENERATION = 1024;

/**
 * The day's count, and the keys of the newest counts (newest generation first): a re-run, or a
 * re-submission of identical content soon after, counts once. An older key forgotten is counted
 * once all the same where the log refuses an event id twice (the embedded log: the count's event id
 * is derived from rule, day and content); elsewhere it may take a second slot (docs/architecture.md).
 */
export interface DailyActionCapState {
  readonly count: number;
  readonly keys: readonly [ReadonlySet<string>, ReadonlySet<string>];
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
  return state.keys[0].has(key) || state.keys[1].has(key);
}

/**
 * A rule's maxDailyActions, decided on the write side (docs/architecture.md, "Write side"): appended with the
 * expected revision of the day's stream, so concurrent evaluations cannot overshoot. Counting an
 * item's content again (a re-run, or a re-submission of identical content, whose action has the
 * same delivery id and is not sent twice) decides nothing and leaves it allowed; past the cap it
 * is refused.
 */
export const dailyActionCapDecider: Decider<DailyActionCapCommand, DailyActionCapState, DailyActionCapEvent> = {
  eventTypes: { RuleDailyActionCounted: true },
  initialState: { count: 0, keys: [new Set(), new Set()] },

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
    const [newest, previous] = state.keys;
    const keys: DailyActionCapState['keys'] = newest.size >= COUNTED_KEYS_GENERATION ? [new Set([key]), newest] : [new Set(newest).add(key), previous];
    return { count: state.count + 1, keys };
  },

  snapshot: {
    name: 'daily_actions',
    version: 1,
    encode: (state) => ({ count: state.count, keys: [[...state.keys[0]], [...state.keys[1]]] }),
    decode: (json: Json) => {
      const s = json as { count: number; keys: [string[], string[]] };
      return { count: s.count, keys: [new Set(s.keys[0]), new Set(s.keys[1])] };
    },
  },
};
