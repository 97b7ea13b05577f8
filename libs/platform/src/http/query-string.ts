import { invalidInput, type DomainError } from '#warden/kernel';
import { escapePointer } from './validation.js';

/**
 * The query string's parameters whose name or value is not valid percent-encoded UTF-8, by name
 * (a symbol: never a parameter, and left out by everything that copies the query's own keys).
 */
const MALFORMED = Symbol('malformedQueryParameters');

export type ParsedQuery = Record<string, string | string[]> & { [MALFORMED]?: readonly string[] };

/**
 * The router's query-string parser (Fastify's routerOptions.querystringParser). It reads the query
 * as Fastify's own parser does (`+` is a space, a repeated name gives an array, a name without `=`
 * an empty value, the object has no prototype), except for bytes that are not valid UTF-8 once
 * percent-decoded (`%ED%A0%80`, a lone surrogate) or an escape that is not one (`%zz`): the
 * default parser keeps them as U+FFFD or as raw text, so a malformed id became some other id and
 * was answered. Here they are set aside under MALFORMED, and malformedQueryError refuses the
 * request. The parser itself never throws: it runs inside the router's lookup, before any hook,
 * where an exception would not reach the error body.
 */
export function parseQueryString(query: string): ParsedQuery {
  const result = Object.create(null) as ParsedQuery;
  if (query.length === 0) return result;
  let malformed: string[] | undefined;
  for (const pair of query.split('&')) {
    if (pair.length === 0) continue;
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const name = decode(rawName);
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
    if (name === undefined || value === undefined) {
      // A name that cannot be read is named as it was sent.
      (malformed ??= []).push(name ?? rawName);
      continue;
    }
    const current = result[name];
    if (current === undefined) result[name] = value;
    else if (Array.isArray(current)) current.push(value);
    else result[name] = [current, value];
  }
  if (malformed) Object.defineProperty(result, MALFORMED, { value: malformed, enumerable: false });
  return result;
}

/** The 400 for a query with parameters that are not valid percent-encoded UTF-8, one detail per parameter; undefined if it has none. */
export function malformedQueryError(query: unknown): DomainError | undefined {
  const names = (query as ParsedQuery | undefined)?.[MALFORMED];
  if (!names) return undefined;
  return invalidInput(
    ...names.map((name) => ({
      title: 'Invalid request',
      detail: 'The query parameter is not valid percent-encoded UTF-8',
      pointer: `/${escapePointer(name)}`,
    })),
  );
}

function decode(text: string): string | undefined {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  if (!spaced.includes('%')) return spaced;
  try {
    // decodeURIComponent throws on an escape that is not one and on bytes that are not UTF-8
    // (an overlong form, a surrogate, a truncated sequence): exactly what is refused.
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}
