/**
 * The comparators of leaf conditions (docs/rules.md, "The condition model"), compiled once per
 * leaf against the configured value. Ordering comparators compare numbers, or ISO 8601 dates and
 * datetimes as the instants they name (parsed as item validation parses a DATETIME field:
 * the catalog's parseIsoDateTime); so do EQUALS, NOT_EQUAL_TO and an array's CONTAINS when the
 * configured value is one, so that a value is equal exactly when it is both LTE and GTE.
 */
import { type Comparator, parseIsoDateTime } from '#warden/catalog/contracts';

/** Compiles a comparator against its configured value; applied to present values only. */
export function compileComparator(comparator: Comparator, expected: unknown): (actual: unknown) => boolean {
  switch (comparator) {
    case 'EQUALS':
      return compileEquality(expected);
    case 'NOT_EQUAL_TO': {
      const equals = compileEquality(expected);
      return (actual) => !equals(actual);
    }
    case 'LT':
      return compileOrdering(expected, (c) => c < 0);
    case 'LTE':
      return compileOrdering(expected, (c) => c <= 0);
    case 'GT':
      return compileOrdering(expected, (c) => c > 0);
    case 'GTE':
      return compileOrdering(expected, (c) => c >= 0);
    case 'CONTAINS': {
      // An array field never reaches here whole: the evaluator tests its elements one by one, so
      // on a text array this is a substring test per element. Only an array value (an element of
      // an array of arrays, a signal's answer) is searched for an equal element (docs/rules.md).
      const equals = compileEquality(expected);
      return (actual) => {
        if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
        if (Array.isArray(actual)) return actual.some(equals);
        return false;
      };
    }
    default:
      // IS_UNAVAILABLE and IS_NOT_PROVIDED are decided by the evaluator, not by a value.
      return () => false;
  }
}

/**
 * Equality with the configured value. A date or datetime value equals a string naming the same
 * instant however it is written (`2026-03-01T01:00:00+01:00`, `2026-03-01T00:00:00.000Z`): compared
 * as text, a platform serializing with milliseconds or an offset missed every match, while LTE and
 * GTE both held.
 */
function compileEquality(expected: unknown): (actual: unknown) => boolean {
  const expectedTime = typeof expected === 'string' ? isoToMillis(expected) : undefined;
  if (expectedTime === undefined) return (actual) => deepEqual(actual, expected);
  return (actual) => actual === expected || (typeof actual === 'string' && isoToMillis(actual) === expectedTime);
}

function compileOrdering(expected: unknown, holds: (comparison: number) => boolean): (actual: unknown) => boolean {
  if (typeof expected === 'number') {
    if (Number.isNaN(expected)) return () => false;
    return (actual) => typeof actual === 'number' && !Number.isNaN(actual) && holds(actual === expected ? 0 : actual < expected ? -1 : 1);
  }
  const expectedTime = typeof expected === 'string' ? isoToMillis(expected) : undefined;
  if (expectedTime === undefined) return () => false;
  return (actual) => {
    if (typeof actual !== 'string') return false;
    const time = isoToMillis(actual);
    return time !== undefined && holds(time === expectedTime ? 0 : time < expectedTime ? -1 : 1);
  };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as { [key: string]: unknown };
  const right = b as { [key: string]: unknown };
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) if (!Object.hasOwn(right, key) || !deepEqual(left[key], right[key])) return false;
  return true;
}

/**
 * A date or datetime's instant: `YYYY-MM-DD[Thh:mm[:ss[.fff]][Z|±hh[:mm]]]`, the DATETIME shape
 * item validation accepts plus date-only values and a space for the `T`. Without an offset the
 * time is read as UTC, so comparisons never depend on the server's time zone. A fraction of any
 * length compares, as validation accepts it (the pattern is anchored and linear in the text).
 */
function isoToMillis(text: string): number | undefined {
  if (text.length < 10) return undefined;
  return parseIsoDateTime(text)?.millis;
}
