/**
 * One reference token of an RFC 6901 JSON pointer. Here rather than beside the validation pipe:
 * the limits are checked without HTTP too (the inbound topic, docs/inbound-topic.md).
 */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** What a JSON request body may hold, checked right after parsing (docs/api.md, "Limits"). */
export interface JsonBodyLimits {
  /** Deepest nesting of objects and arrays; the body itself is level 1. */
  readonly maxDepth: number;
  /** Largest string, value or member name, in UTF-8 bytes. */
  readonly maxStringBytes: number;
  /**
   * Most members of one object. The transformation behind the parser costs time in proportion to
   * an object's members at best (docs/api.md, "Request limits"); a bound keeps one object from
   * holding the event loop however cheap each member is.
   */
  readonly maxObjectMembers: number;
  /**
   * Most values in the whole body (every string, number, boolean, null, object and array, the body
   * itself included); none when absent. What walks a body after parsing (the validation pipe's
   * transformation, the checks) costs about a microsecond a value, so 10 MiB of `{},` (3.5
   * million values) held the event loop for seconds while every member-count was within bounds.
   */
  readonly maxValues?: number;
}

/** The limits the configuration sets (WARDEN_MAX_JSON_DEPTH, …), for every JSON Warden takes in: request bodies, topic messages, partial-items answers. */
export const jsonBodyLimitsOf = (config: {
  readonly maxJsonDepth: number;
  readonly maxStringBytes: number;
  readonly maxObjectMembers: number;
  readonly maxJsonValues: number;
}): JsonBodyLimits => ({
  maxDepth: config.maxJsonDepth,
  maxStringBytes: config.maxStringBytes,
  maxObjectMembers: config.maxObjectMembers,
  maxValues: config.maxJsonValues,
});

/** `too-large` is answered 413, the others 400. */
export interface JsonBodyProblem {
  readonly kind: 'too-deep' | 'ill-formed' | 'prototype-key' | 'too-large' | 'not-finite';
  /** RFC 6901 pointer to the offending value or member. */
  readonly pointer: string;
  readonly detail: string;
}

type Container = unknown[] | { [key: string]: unknown };

/**
 * The path from the body to the value being looked at, as parallel arrays (no allocation per
 * value: this runs on every request body). Level n holds a container, its member names (none for
 * an array) and the index of its next child; the child being looked at is the one before it.
 */
interface Walk {
  readonly containers: Container[];
  readonly keys: Array<string[] | undefined>;
  readonly next: number[];
}

/**
 * The first problem of a parsed body in document order, or undefined. The walk keeps its own
 * stack, so a body nested a million levels deep costs a loop, not the call stack: it stops at
 * the first value deeper than the limit, before any recursive validator sees the body.
 */
export function findJsonBodyProblem(body: unknown, limits: JsonBodyLimits): JsonBodyProblem | undefined {
  if (typeof body === 'string') return at('', stringProblem(body, limits, false));
  if (typeof body === 'number') return at('', numberProblem(body));
  if (!isContainer(body)) return undefined;
  const walk: Walk = { containers: [body], keys: [keysOf(body)], next: [0] };
  const rootMembers = membersProblem(walk.keys[0], limits);
  if (rootMembers) return at('', rootMembers);
  const maxValues = limits.maxValues ?? Infinity;
  let values = 1;
  let top = 0;
  while (top >= 0) {
    const container = walk.containers[top]!;
    const keys = walk.keys[top];
    const i = walk.next[top]!++;
    let child: unknown;
    if (keys === undefined) {
      if (i >= (container as unknown[]).length) {
        top--;
        continue;
      }
      child = (container as unknown[])[i];
    } else {
      if (i >= keys.length) {
        top--;
        continue;
      }
      const key = keys[i]!;
      const problem = memberNameProblem(key, walk, top, limits);
      if (problem) return problem;
      child = (container as { [key: string]: unknown })[key];
      if (key === 'constructor' && isContainer(child) && !Array.isArray(child) && Object.hasOwn(child, 'prototype')) {
        return {
          kind: 'prototype-key',
          pointer: `${pointerOf(walk, top)}/prototype`,
          detail: 'a "prototype" member inside a "constructor" object is not accepted: it could change the prototype of every object',
        };
      }
    }
    if (++values > maxValues) {
      return {
        kind: 'too-large',
        pointer: '',
        detail: `the body holds more than ${maxValues} values (strings, numbers, booleans, nulls, objects and arrays together)`,
      };
    }
    if (typeof child === 'string') {
      const problem = stringProblem(child, limits, false);
      if (problem) return at(pointerOf(walk, top), problem);
    } else if (typeof child === 'number') {
      const problem = numberProblem(child);
      if (problem) return at(pointerOf(walk, top), problem);
    } else if (isContainer(child)) {
      // The child is at level top + 2 (the body is level 1, at index 0).
      if (top + 2 > limits.maxDepth) {
        return {
          kind: 'too-deep',
          pointer: pointerOf(walk, top),
          detail: `nested more than ${limits.maxDepth} levels deep (objects and arrays; the body is level 1)`,
        };
      }
      const childKeys = keysOf(child);
      const problem = membersProblem(childKeys, limits);
      if (problem) return at(pointerOf(walk, top), problem);
      top++;
      walk.containers[top] = child;
      walk.keys[top] = childKeys;
      walk.next[top] = 0;
    }
  }
  return undefined;
}

function keysOf(container: Container): string[] | undefined {
  return Array.isArray(container) ? undefined : Object.keys(container);
}

/** The pointer of the child being looked at in the container at level `top` (built only for a problem). */
function pointerOf(walk: Walk, top: number): string {
  let pointer = '';
  for (let level = 0; level <= top; level++) {
    const index = walk.next[level]! - 1;
    const keys = walk.keys[level];
    pointer += `/${keys === undefined ? index : escapePointer(keys[index]!)}`;
  }
  return pointer;
}

/** A long or ill-formed name is reported at its object: the pointer does not echo it. */
function memberNameProblem(key: string, walk: Walk, top: number, limits: JsonBodyLimits): JsonBodyProblem | undefined {
  if (key === '__proto__') {
    return {
      kind: 'prototype-key',
      pointer: pointerOf(walk, top),
      detail: 'the member name "__proto__" is not accepted: it could change the prototype of an object',
    };
  }
  const problem = stringProblem(key, limits, true);
  return problem && at(pointerOf(walk, top - 1), problem);
}

type Unplaced = Omit<JsonBodyProblem, 'pointer'>;

const at = (pointer: string, problem: Unplaced | undefined): JsonBodyProblem | undefined => problem && { ...problem, pointer };

function stringProblem(value: string, limits: JsonBodyLimits, memberName: boolean): Unplaced | undefined {
  // UTF-8 needs at most 3 bytes per UTF-16 code unit: most strings need no byte count at all.
  if (value.length * 3 > limits.maxStringBytes) {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > limits.maxStringBytes) {
      return {
        kind: 'too-large',
        detail: `${memberName ? 'a member name of this object' : 'the string'} has ${bytes} bytes; at most ${limits.maxStringBytes} bytes (UTF-8) per string`,
      };
    }
  }
  if (!value.isWellFormed()) {
    return {
      kind: 'ill-formed',
      detail: `${memberName ? 'a member name of this object' : 'the string'} is not well-formed Unicode: it holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape)`,
    };
  }
  return undefined;
}

function membersProblem(keys: string[] | undefined, limits: JsonBodyLimits): Unplaced | undefined {
  if (keys === undefined || keys.length <= limits.maxObjectMembers) return undefined;
  return { kind: 'too-large', detail: `the object has ${keys.length} members; at most ${limits.maxObjectMembers} members per object` };
}

/**
 * JSON.parse reads a number beyond the double range (1e400) as Infinity, which no store keeps:
 * it would be stored as null, and fingerprint as null, so it is refused rather than altered.
 */
function numberProblem(value: number): Unplaced | undefined {
  if (Number.isFinite(value)) return undefined;
  return { kind: 'not-finite', detail: 'the number is out of range: a number must be finite, at most about 1.8e308 in magnitude' };
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}
