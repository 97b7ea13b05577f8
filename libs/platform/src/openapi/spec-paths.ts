/**
 * The operations whose path the published API writes with a trailing slash (docs/api.md, "Paths"). The
 * spec has no rule for it (`POST /api/v1/report`, `GET /api/v1/user_scores`, `POST /api/v1/actions`
 * and `POST /api/v1/gdpr/delete` have none, `GET /api/v1/actions/` has one), so this is a table.
 * The server answers both spellings (Fastify's `ignoreTrailingSlash`); the document publishes the
 * spec's, because a client generated from it accepts only the paths it publishes. Every other
 * operation, the spec's and our own extensions, is published as its controller declares it.
 */
export const SPEC_TRAILING_SLASH_OPERATIONS: ReadonlyArray<{ readonly method: string; readonly path: string }> = [
  { method: 'post', path: '/api/v1/items/async/' }, // docs/rules.md, "Submitting items"
  { method: 'get', path: '/api/v1/policies/' }, // docs/configuration-as-code.md, "The read endpoints"
  { method: 'get', path: '/api/v1/actions/' }, // docs/configuration-as-code.md, "The read endpoints"
  { method: 'post', path: '/api/v1/content/' }, // docs/rules.md, "Submitting items"
  { method: 'get', path: '/api/v1/item_types/' }, // docs/configuration-as-code.md, "The read endpoints"
];

type PathItems = Record<string, Record<string, unknown>>;

/** Moves each listed operation from the declared path to the spec's spelling of it. */
export function spellPathsAsTheSpec(paths: PathItems): PathItems {
  const result: PathItems = structuredClone(paths);
  for (const { method, path } of SPEC_TRAILING_SLASH_OPERATIONS) {
    const declared = path.replace(/\/+$/, '');
    const operation = result[declared]?.[method];
    if (operation === undefined) continue;
    delete result[declared]![method];
    if (Object.keys(result[declared]!).length === 0) delete result[declared];
    result[path] = { ...result[path], [method]: operation };
  }
  return result;
}
