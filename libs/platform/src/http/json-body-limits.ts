import { escapePointer } from './validation.js';

/** What a JSON request body may hold, checked right after parsing (docs/api.md, "Limits"). */
export interface JsonBodyLimits {
  /** Deepest nesting of objects and arrays; the body itself is level 1. */
  readonly maxDepth: number;
  /** Largest string, value or member name, in UTF-8 bytes. */
  readonly maxStringBytes: number;
}

/** `too-large` is answered 413, the others 400. */
export interface JsonBodyProblem {
  readonly kind: 'too-deep' | 'ill-formed' | 'prototype-key' | 'too-large';
  /** RFC 6901 pointer to the offending value or member. */
  readonly pointer: string;
  readonly detail: string;
}

type Container = unknown[] | { [key: string]: unknown };

/** A pointer kept as a chain of tokens, joined only when a problem is reported. */
interface Path {
  readonly parent: Path | undefined;
  readonly token: string;
}

interface Frame {
  readonly value: Container;
  /** The member names of an object; undefined for an array. */
  readonly keys: string[] | undefined;
  index: number;
  readonly path: Path | undefined;
}

/**
 * The first problem of a parsed body in document order, or undefined. The walk keeps its own
 * stack, so a body nested a million levels deep costs a loop, not the call stack: it stops at
 * the first value deeper than the limit, before any recursive validator sees the body.
 */
export function findJsonBodyProblem(body: unknown, limits: JsonBodyLimits): JsonBodyProblem | undefined {
  if (typeof body === 'string') return stringProblem(body, undefined, limits, false);
  if (!isContainer(body)) return undefined;
  const stack: Frame[] = [frame(body, undefined)];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const i = top.index++;
    let child: unknown;
    let path: Path;
    if (top.keys === undefined) {
      const array = top.value as unknown[];
      if (i >= array.length) {
        stack.pop();
        continue;
      }
      child = array[i];
      path = { parent: top.path, token: String(i) };
    } else {
      if (i >= top.keys.length) {
        stack.pop();
        continue;
      }
      const key = top.keys[i]!;
      path = { parent: top.path, token: escapePointer(key) };
      const problem = memberNameProblem(key, path, top.path, limits);
      if (problem) return problem;
      child = (top.value as { [key: string]: unknown })[key];
      if (key === 'constructor' && isContainer(child) && !Array.isArray(child) && Object.hasOwn(child, 'prototype')) {
        return {
          kind: 'prototype-key',
          pointer: pointerOf({ parent: path, token: 'prototype' }),
          detail: 'a "prototype" member inside a "constructor" object is not accepted: it could change the prototype of every object',
        };
      }
    }
    if (typeof child === 'string') {
      const problem = stringProblem(child, path, limits, false);
      if (problem) return problem;
    } else if (isContainer(child)) {
      if (stack.length + 1 > limits.maxDepth) {
        return {
          kind: 'too-deep',
          pointer: pointerOf(path),
          detail: `nested more than ${limits.maxDepth} levels deep (objects and arrays; the body is level 1)`,
        };
      }
      stack.push(frame(child, path));
    }
  }
  return undefined;
}

function frame(value: Container, path: Path | undefined): Frame {
  return { value, keys: Array.isArray(value) ? undefined : Object.keys(value), index: 0, path };
}

/** A long or ill-formed name is reported at its object: the pointer does not echo it. */
function memberNameProblem(key: string, path: Path, object: Path | undefined, limits: JsonBodyLimits): JsonBodyProblem | undefined {
  if (key === '__proto__') {
    return {
      kind: 'prototype-key',
      pointer: pointerOf(path),
      detail: 'the member name "__proto__" is not accepted: it could change the prototype of an object',
    };
  }
  return stringProblem(key, object, limits, true);
}

function stringProblem(value: string, path: Path | undefined, limits: JsonBodyLimits, memberName: boolean): JsonBodyProblem | undefined {
  const what = memberName ? 'a member name of this object' : 'the string';
  // UTF-8 needs at most 3 bytes per UTF-16 code unit: most strings need no byte count at all.
  if (value.length * 3 > limits.maxStringBytes) {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > limits.maxStringBytes) {
      return {
        kind: 'too-large',
        pointer: pointerOf(path),
        detail: `${what} has ${bytes} bytes; at most ${limits.maxStringBytes} bytes (UTF-8) per string`,
      };
    }
  }
  if (!value.isWellFormed()) {
    return {
      kind: 'ill-formed',
      pointer: pointerOf(path),
      detail: `${what} is not well-formed Unicode: it holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape)`,
    };
  }
  return undefined;
}

function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

function pointerOf(path: Path | undefined): string {
  const tokens: string[] = [];
  for (let p = path; p !== undefined; p = p.parent) tokens.push(p.token);
  return tokens.reverse().map((t) => `/${t}`).join('');
}
