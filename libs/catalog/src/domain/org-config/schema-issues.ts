import type * as z from 'zod';
import { describeValue, type Path, type PathSegment, type ProblemList } from './config-problems.js';

/** Issues carry their input, which the messages quote. */
export const PARSE_PARAMS = { reportInput: true } as const;

/** zod issues as problems in an author's words. */
export function addIssues(issues: readonly z.core.$ZodIssue[], prefix: Path, problems: ProblemList): void {
  for (const issue of issues) {
    const path = [...prefix, ...(issue.path as PathSegment[])];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.add([...path, key], 'unknown key');
    } else {
      problems.add(path, describeIssue(issue));
    }
  }
}

/** Hands a nested parse's issues to the enclosing schema, which prefixes its own path. */
export function forwardIssues(ctx: z.core.$RefinementCtx, issues: readonly z.core.$ZodIssue[], prefix: PathSegment[] = []): void {
  for (const issue of issues) {
    // zod types each issue's input narrowly (a string for format issues); these came from a real parse.
    ctx.issues.push({ ...issue, path: [...prefix, ...issue.path], input: issue.input } as z.core.$ZodRawIssue);
  }
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${EXPECTED_TYPES[issue.expected] ?? issue.expected} (got ${describeValue(issue.input)})`;
    case 'invalid_value':
      if (issue.input === undefined) return `is required (one of ${issue.values.join(', ')})`;
      return `must be one of ${issue.values.join(', ')} (got ${describeValue(issue.input)})`;
    case 'too_small':
      return describeBound(issue.origin, 'min', Number(issue.minimum), issue.inclusive ?? true);
    case 'too_big':
      return describeBound(issue.origin, 'max', Number(issue.maximum), issue.inclusive ?? true);
    case 'invalid_union':
      return issue.input === undefined ? 'is required' : issue.message;
    default:
      return issue.message;
  }
}

const EXPECTED_TYPES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
  date: 'a date',
};

function describeBound(origin: string, side: 'min' | 'max', bound: number, inclusive: boolean): string {
  if (origin === 'array' || origin === 'string') {
    const unit = origin === 'array' ? 'items' : 'characters';
    if (side === 'min' && bound === 1) return 'must not be empty';
    return side === 'min' ? `must have at least ${bound} ${unit}` : `must have at most ${bound} ${unit}`;
  }
  if (side === 'min') return inclusive ? `must be at least ${bound}` : `must be greater than ${bound}`;
  return inclusive ? `must be at most ${bound}` : `must be less than ${bound}`;
}
