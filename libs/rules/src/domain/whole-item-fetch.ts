import type { SetEvaluation } from './evaluation.model.js';

/**
 * Whether a partial item's rules need the whole item (docs/partial-items.md, "When Warden asks"):
 * a rule left undecided by a leaf short of fields the item did not send, that leaf's every
 * enclosing set being unknown too. A leaf under a set that its other children decided changes
 * nothing; a rule unknown for another reason (a signal that failed on a field that was sent) is
 * not decided by more fields either. Either way no fetch.
 */
export function needsWholeItem(sets: readonly SetEvaluation[]): boolean {
  return sets.some((set) => {
    if (set.outcome !== 'unknown') return false;
    const outcomes = new Map(set.conditions.map((c) => [c.path, c.outcome] as const));
    return set.conditions.some((c) => {
      if (c.missing === undefined) return false;
      for (let at = c.path.lastIndexOf('.conditions['); at > 0; at = c.path.lastIndexOf('.conditions[', at - 1)) {
        if (outcomes.get(c.path.slice(0, at)) !== 'unknown') return false;
      }
      return true;
    });
  });
}
