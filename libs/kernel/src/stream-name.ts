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
