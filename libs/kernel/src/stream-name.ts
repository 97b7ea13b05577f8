/**
 * Stream names are `<category>-<id>`: a snake_case category, then the organization id and the
 * entity's ids, each percent-encoded and joined with `:`. Encoding `-` and `:` inside the parts
 * keeps two entities from ever sharing a stream and the category from ever being ambiguous.
 */
const CATEGORY = /^[a-z][a-z0-9_]*$/;

export function encodeStreamPart(part: string): string {
  return encodeURIComponent(part).replace(/[-!'()*.~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

export function streamName(category: string, ...idParts: string[]): string {
  if (!CATEGORY.test(category)) throw new Error(`Invalid stream category: ${category}`);
  if (idParts.length === 0) throw new Error('A stream name needs at least one id part');
  // Input is checked before it gets here (idProblem); this is the last line, not a validation.
  if (!idParts.every((p) => p.isWellFormed())) throw new Error(`A stream id part of ${category} is not well-formed Unicode`);
  return `${category}-${idParts.map(encodeStreamPart).join(':')}`;
}

export function parseStreamName(name: string): { category: string; idParts: string[] } {
  const dash = name.indexOf('-');
  if (dash <= 0) throw new Error(`Not a stream name: ${name}`);
  return {
    category: name.slice(0, dash),
    idParts: name
      .slice(dash + 1)
      .split(':')
      .map((p) => decodeURIComponent(p)),
  };
}

export const streamCategory = (name: string): string => name.slice(0, name.indexOf('-'));

/** Customer-given ids longer than this are refused (UTF-16 code units, as String#length counts). */
export const MAX_ID_LENGTH = 256;

// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * What is wrong with a customer-given id that becomes part of a stream name or a key (an item's
 * id and type id, its creator's), or undefined. A lone surrogate has no UTF-8 form: it would be
 * stored as U+FFFD, so two different ids would share a stream, a key and a personal-data subject.
 */
export function idProblem(id: string): string | undefined {
  if (id.length === 0) return 'expected a non-empty string';
  if (id.length > MAX_ID_LENGTH) return `expected at most ${MAX_ID_LENGTH} characters, got ${id.length}`;
  if (!id.isWellFormed()) return 'expected well-formed Unicode, got a lone UTF-16 surrogate';
  if (CONTROL_CHARACTER.test(id)) return 'expected no control characters';
  return undefined;
}
